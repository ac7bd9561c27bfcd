// What an RTP session is keyed with and what it reports: the shapes CallMedia, the call record
// and the media links share.

/**
 * The crypto suite and the two base64 inline keys an SDES exchange agreed: `sendKey` protects
 * what we send (the key in our a=crypto), `receiveKey` unprotects what the peer sends (its key).
 */
export interface RtpSrtpKeys {
  suite: string
  sendKey: string
  receiveKey: string
}

/** Incoming packets dropped because SRTP refused them; counted across re-keys. */
export interface RtpSrtpStats {
  suite: string
  /** The authentication tag did not verify (forged, corrupted, or under another key). */
  authFailures: number
  /** Already received, or older than the replay window. */
  replays: number
  /** Too short to be SRTP/SRTCP, or not version 2. */
  malformed: number
}

export interface RtpSessionStats {
  ssrc: number
  remoteSsrc?: number
  packetsSent: number
  octetsSent: number
  packetsReceived: number
  /** Our view of the incoming stream. */
  packetsLost: number
  fractionLost: number
  jitterMs: number
  /** The peer's view of our stream, from its last report. */
  remotePacketsLost?: number
  remoteFractionLost?: number
  remoteJitterMs?: number
  rttMs?: number
  /** Packets from sources other than the latched one, and unparsable datagrams. */
  rejectedPackets: number
  malformedPackets: number
  /** Sends the kernel refused (usually ICMP port unreachable from a peer that went away). */
  sendErrors: number
  latchedTo?: string
  /** Present while the session speaks SRTP. */
  srtp?: RtpSrtpStats
}
