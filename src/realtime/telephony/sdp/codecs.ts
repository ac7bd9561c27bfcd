// The audio codecs this appliance speaks and how they appear in SDP.
import { parseMediaCodecs } from '../../../platform/config/index.ts'

/**
 * The codecs a call's media runs. L16 (16 kHz 16-bit PCM, little-endian) is the media-stream
 * WebSocket's binary format only: it is never offered, answered or accepted in SDP.
 */
export type CodecName = 'PCMU' | 'PCMA' | 'opus' | 'L16'
export type Direction = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive'

export interface CodecSpec {
  name: CodecName
  payloadType: number
  /** RTP clock rate in Hz (48000 for Opus whatever the audio bandwidth). */
  clockRate: number
  channels: number
  fmtp?: string
}

export const CODEC_DEFAULTS: Record<CodecName, CodecSpec> = {
  PCMU: { name: 'PCMU', payloadType: 0, clockRate: 8000, channels: 1 },
  PCMA: { name: 'PCMA', payloadType: 8, clockRate: 8000, channels: 1 },
  // Mono content in an opus/48000/2 stream (RFC 7587): ask the peer for mono with stereo=0.
  opus: { name: 'opus', payloadType: 111, clockRate: 48000, channels: 2, fmtp: 'minptime=10;useinbandfec=1;stereo=0;sprop-stereo=0' },
  // not SDP's: a WebSocket link's synthesised packets carry this payload type
  L16: { name: 'L16', payloadType: 96, clockRate: 16000, channels: 1 },
}

export const TELEPHONE_EVENT_PT = 101

/** Parses a preference list such as "opus,PCMU,PCMA"; unknown names (and L16, which SIP never offers) are an error (MEDIA_CODECS is read so when the configuration loads). */
export function parseCodecList(list: string): CodecName[] {
  return parseMediaCodecs(list)
}

/** Packet times each codec can carry, in ms. */
export function ptimeAllowed(codec: CodecName, ptimeMs: number): boolean {
  if (codec === 'opus') return [10, 20, 40, 60].includes(ptimeMs)
  return Number.isInteger(ptimeMs) && ptimeMs >= 10 && ptimeMs <= 60 && ptimeMs % 10 === 0
}
