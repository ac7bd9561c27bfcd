// The shapes of SDP negotiation (offer-answer.ts makes them): our options, what an offer/answer
// agreed, our offer with its SDES keys, the error a negotiation fails with, and the media's wire
// form for a call worker, which keeps the SRTP keys a structured clone would drop. Pure.
import type { CodecName, CodecSpec, Direction } from './codecs.ts'
import type { SrtpSuite } from '../../srtp/index.ts'
import { srtpFromWire, srtpToWire, type MediaEncryption, type NegotiatedSrtp, type OfferedSrtp, type SrtpWire } from './srtp.ts'

/** Negotiation failure; `status` is the SIP response code to send (400 or 488). */
export class SdpError extends Error {
  constructor(
    readonly status: 400 | 488,
    message: string,
  ) {
    super(message)
  }
  get reason(): string {
    return this.status === 488 ? 'Not Acceptable Here' : 'Bad Request'
  }
}

export interface LocalMediaOptions {
  /** Our IP address for c= and o=. */
  address: string
  /** Our RTP port. */
  port: number
  /** Codec preference, most wanted first. */
  codecs?: CodecName[]
  /** Whose order picks the codec when both offer several: ours (default) or the offerer's. */
  preferenceOrder?: 'local' | 'remote'
  ptimeMs?: number
  /** The direction we want, before the peer's is taken into account. */
  direction?: Direction
  telephoneEvent?: boolean
  rtcpMux?: boolean
  sessionId?: number
  sessionVersion?: number
  /** SRTP with SDES keys: 'none' (default, plain RTP as ever), 'optional' or 'required' (see MediaEncryption). */
  encryption?: MediaEncryption
  /** The suites we offer and accept, most wanted first (default DEFAULT_SRTP_SUITES). */
  srtpSuites?: readonly SrtpSuite[]
}

export interface NegotiatedMedia {
  remoteAddress: string
  remotePort: number
  remoteRtcpPort: number
  rtcpMux: boolean
  codec: CodecSpec
  telephoneEvent?: { payloadType: number; clockRate: number }
  /** Packet time we send with, in ms. */
  ptimeMs: number
  /** From our side: sendrecv means we both send and receive. */
  direction: Direction
  /** The peer holds the call (it sends sendonly/inactive or c=0.0.0.0). */
  remoteHold: boolean
  /**
   * SRTP, when the offer/answer agreed SDES keys; absent for plain RTP. Its keys are hidden from
   * JSON and inspection, and lost by a structured clone: cross threads with toMediaWire.
   */
  srtp?: NegotiatedSrtp
}

/** Our offer and the SDES keys it carries, which acceptAnswer needs to read the answer. */
export interface MediaOffer {
  sdp: string
  /** Present when the offer carries a=crypto lines (encryption 'optional' or 'required'). */
  srtp?: OfferedSrtp
}

/** NegotiatedMedia with its SRTP keys as plain fields, for a postMessage to a call worker. Never log one. */
export type NegotiatedMediaWire = Omit<NegotiatedMedia, 'srtp'> & { srtp?: SrtpWire }

/** The media for a postMessage: a structured clone keeps the keys of the result, not of a NegotiatedSrtp. */
export function toMediaWire(media: NegotiatedMedia): NegotiatedMediaWire {
  const { srtp, ...rest } = media
  return srtp ? { ...rest, srtp: srtpToWire(srtp) } : rest
}

/** The media back from toMediaWire on the receiving thread (a NegotiatedMedia passes unchanged). */
export function fromMediaWire(wire: NegotiatedMediaWire | NegotiatedMedia): NegotiatedMedia {
  const { srtp, ...rest } = wire
  return srtp ? { ...rest, srtp: srtpFromWire(srtp) } : rest
}
