// The media facts a call record keeps (codec, where the far end's media came from, SRTP, what
// crossed the wire and how it arrived), from the call media's stats when it closed. Pure.
import type { CallMediaStats } from '../../../realtime/media/index.ts'
import type { NegotiatedMedia } from '../../../realtime/telephony/sdp/index.ts'

/** Why a web call failed: no ICE candidate pair succeeded, DTLS did not finish, or no media came. */
export type WebFailure = 'ice_failed' | 'dtls_failed' | 'no_media'

export interface MediaFacts {
  /** name/clock rate, e.g. PCMU/8000, opus/48000. */
  codec: string
  /** Where the far end's media came from (the latched source), else where the SDP said it would. */
  remoteAddress: string
  remotePort: number
  srtpSuite: string | null
  packetsSent: number
  bytesSent: number
  packetsReceived: number
  bytesReceived: number
  /** Never arrived (RTP sequence gaps). */
  packetsLost: number
  /** Arrived after their playout time. */
  packetsLate: number
  /** Dropped by the jitter buffer to bring its delay back down. */
  packetsDiscarded: number
  /** RFC 3550 interarrival jitter, ms. */
  jitterMs: number
  /** The longest time between two incoming packets while media was due (not on hold), ms. */
  maxGapMs: number
  /** Web calls: how ICE and DTLS went, and why the call failed when it did. */
  web?: { ice: string; dtls: string; failure: WebFailure | null }
}

const round1 = (n: number) => Math.round(n * 10) / 10

function latched(latchedTo: string | undefined): { address: string; port: number } | undefined {
  const m = latchedTo ? /^(.*):(\d+)$/.exec(latchedTo) : null
  return m ? { address: m[1]!, port: Number(m[2]) } : undefined
}

export function mediaFacts(media: NegotiatedMedia, stats: CallMediaStats): MediaFacts {
  const { rtp, jitter, receive } = stats
  const from = latched(rtp.latchedTo) ?? { address: media.remoteAddress, port: media.remotePort }
  return {
    codec: `${media.codec.name}/${media.codec.clockRate}`,
    remoteAddress: from.address,
    remotePort: from.port,
    srtpSuite: rtp.srtp?.suite ?? stats.linkSrtpSuite ?? media.srtp?.suite ?? null,
    packetsSent: rtp.packetsSent,
    bytesSent: rtp.octetsSent,
    packetsReceived: rtp.packetsReceived,
    bytesReceived: receive.bytesReceived,
    packetsLost: Math.max(0, rtp.packetsLost),
    packetsLate: jitter.late,
    packetsDiscarded: jitter.dropped,
    jitterMs: round1(rtp.jitterMs),
    maxGapMs: receive.maxGapMs,
  }
}

/** The facts of a call whose media never flowed (a web call that did not connect): its codec and address, nothing counted. */
export function unflowedFacts(media: NegotiatedMedia): MediaFacts {
  return {
    codec: `${media.codec.name}/${media.codec.clockRate}`,
    remoteAddress: media.remoteAddress,
    remotePort: media.remotePort,
    srtpSuite: null,
    packetsSent: 0, bytesSent: 0, packetsReceived: 0, bytesReceived: 0, packetsLost: 0, packetsLate: 0, packetsDiscarded: 0,
    jitterMs: 0,
    maxGapMs: 0,
  }
}

/**
 * A web call's facts with its ICE and DTLS outcome: a peer that never connected failed ICE (no
 * pair succeeded) or DTLS (a pair did); one that connected but whose media watchdog fired with
 * nothing received had no media.
 */
export function webCallFacts(facts: MediaFacts | undefined, notConnected: 'ice_failed' | 'dtls_failed' | undefined, mediaTimedOut: boolean, offered: NegotiatedMedia | undefined): MediaFacts | undefined {
  if (notConnected) {
    const base = facts ?? (offered && unflowedFacts(offered))
    const web = notConnected === 'ice_failed' ? { ice: 'failed', dtls: 'new' } : { ice: 'connected', dtls: 'failed' }
    return base && { ...base, web: { ...web, failure: notConnected } }
  }
  if (!facts) return undefined
  return { ...facts, web: { ice: 'connected', dtls: 'connected', failure: mediaTimedOut && facts.packetsReceived === 0 ? 'no_media' : null } }
}
