// Where a call's packets travel. A SIP call's RtpSession on its UDP ports is one link; a
// browser's WebRTC peer and a media-stream WebSocket are others. CallMedia sees only this, so
// jitter buffering, codecs, DTMF, pacing and the recording are the same for every leg type.
import type { RemoteEndpoint, RtpPacket, RtpSessionStats, RtpSrtpKeys } from '../rtp/index.ts'

export interface MediaLink {
  /**
   * The far end conceals gaps in the stream (WebRTC's Opus DTX, RFC 7587 section 3.1.3): while the
   * agent is silent, only a silent frame every DTX_KEEPALIVE_MS is sent.
   */
  readonly discontinuous?: boolean
  /** The far end may send nothing for as long as it likes (a media-stream program): no media watchdog. */
  readonly quietAllowed?: boolean
  /** The SRTP suite a link keyed itself agreed (WebRTC's DTLS-SRTP), once it is known. */
  srtpSuite?(): string | undefined
  /**
   * One packet of the negotiated codec; `timestamp` is relative to the link's own base. A link
   * with a pacer given `dueMs` queues it to go out then and returns true; others send at once.
   */
  send(payloadType: number, payload: Uint8Array, timestamp: number, marker: boolean, dueMs?: number): boolean | void
  stats(): RtpSessionStats
  /** A re-INVITE moved the peer (RTP links only). */
  setRemote?(remote: RemoteEndpoint): void
  /** A re-INVITE re-keyed SDES SRTP (RTP links only). */
  setSrtp?(keys: RtpSrtpKeys | undefined): void
  /** Barge-in dropped the agent's queued audio: a far end that buffers what it was sent drops it too. */
  flushed?(): void
  close(): void
}

export interface MediaLinkHandlers {
  onPacket(packet: RtpPacket, arrivalMs: number): void
  /** The far end said it is leaving (RTCP BYE, a stream's stop message). */
  onBye?(): void
}

/** Opens a link once CallMedia knows where its packets go. */
export type MediaLinkFactory = (handlers: MediaLinkHandlers) => MediaLink

/** Stats of a link that counts packets only (no RTCP). */
export function packetCountStats(ssrc: number, sent: { packets: number; octets: number }, received: number): RtpSessionStats {
  return {
    ssrc,
    packetsSent: sent.packets,
    octetsSent: sent.octets,
    packetsReceived: received,
    packetsLost: 0,
    fractionLost: 0,
    jitterMs: 0,
    rejectedPackets: 0,
    malformedPackets: 0,
    sendErrors: 0,
  }
}
