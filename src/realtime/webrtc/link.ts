// A WebRTC transceiver as a call's MediaLink: the browser's RTP in (werift has decrypted it),
// our packets out through the sender, which protects them with the DTLS-SRTP keys.
import { RtpHeader, RtpPacket, type RTCRtpTransceiver } from './werift.ts'
import { packetCountStats, type MediaLink, type MediaLinkFactory } from '../media/index.ts'
import type { RtpPacket as OurRtpPacket } from '../media/rtp/index.ts'

const randomU32 = () => crypto.getRandomValues(new Uint32Array(1))[0]!
/** DTLS-SRTP protection profiles (RFC 5764 section 4.1.2, RFC 7714 section 14.2) by the names SDES gives the same suites. */
const SUITE_OF_PROFILE: Record<number, string> = { 1: 'AES_CM_128_HMAC_SHA1_80', 2: 'AES_CM_128_HMAC_SHA1_32', 7: 'AEAD_AES_128_GCM', 8: 'AEAD_AES_256_GCM' }

export function webrtcLink(transceiver: RTCRtpTransceiver): MediaLinkFactory {
  return (handlers) => {
    const sent = { packets: 0, octets: 0 }
    let received = 0
    let seq = randomU32() & 0xffff
    const tsBase = randomU32()
    const subs: { unSubscribe(): void }[] = []
    const listen = (track: { onReceiveRtp: { subscribe(fn: (rtp: RtpPacket) => void): { unSubscribe(): void } } }) => {
      subs.push(
        track.onReceiveRtp.subscribe((rtp) => {
          received++
          const h = rtp.header
          const packet: OurRtpPacket = { marker: h.marker, payloadType: h.payloadType, sequenceNumber: h.sequenceNumber, timestamp: h.timestamp, ssrc: h.ssrc, csrcs: [], payload: rtp.payload }
          handlers.onPacket(packet, performance.now())
        }),
      )
    }
    const existing = transceiver.receiver.tracks
    if (existing.length > 0) for (const t of existing) listen(t)
    else subs.push(transceiver.onTrack.subscribe((t) => listen(t)))
    let closed = false
    const link: MediaLink = {
      // browsers (NetEq) and werift play a gap in Opus as silence, as with the browsers' own DTX
      discontinuous: true,
      send(payloadType, payload, timestamp, marker) {
        if (closed) return
        const header = new RtpHeader({ payloadType, sequenceNumber: seq, timestamp: (tsBase + timestamp) >>> 0, marker })
        seq = (seq + 1) & 0xffff
        sent.packets++
        sent.octets += payload.length
        void transceiver.sender.sendRtp(new RtpPacket(header, Buffer.from(payload))).catch(() => {})
      },
      stats: () => packetCountStats(transceiver.sender.ssrc, sent, received),
      srtpSuite: () => {
        const profile = transceiver.dtlsTransport?.dtls?.srtp.srtpProfile
        return profile === undefined ? undefined : (SUITE_OF_PROFILE[profile] ?? `profile ${profile}`)
      },
      close() {
        closed = true
        for (const s of subs) s.unSubscribe()
      },
    }
    return link
  }
}
