// One raw SIP call to an appliance with its own RTP socket: how long after the 200 OK the
// caller hears the agent's first loud packet (its greeting), then BYE. For the benchmarks that
// compare a call on loaded engines with one that loads them.
import { decodeG711 } from '../../src/realtime/media/codec/index.ts'
import { header, type SipMessage, type SipResponse } from '../../src/realtime/telephony/sip/index.ts'
import { RtpPeer } from '../../test/helpers/rtp-peer.ts'
import { SipPeer } from '../../test/helpers/sip-peer.ts'

const peak = (payload: Uint8Array) => decodeG711('ulaw', payload).reduce((m, s) => Math.max(m, Math.abs(s)), 0)
let calls = 0

/** Calls `e164` at 127.0.0.1:`sipPort`; resolves with the ms from the 200 OK to the first packet of speech. */
export async function greetingDelayMs(sipPort: number, e164: string): Promise<number> {
  const rtp = await RtpPeer.open()
  const sip = await SipPeer.udp(sipPort)
  const callId = `greeting-${process.pid}-${++calls}`
  const user = e164.replace(/^\+/, '')
  const request = (method: string, cseq: number, toTag = '', body = '') =>
    [
      `${method} sip:${user}@127.0.0.1:${sipPort} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${sip.port};branch=z9hG4bK${method}${Math.random().toString(36).slice(2)};rport`,
      'Max-Forwards: 70',
      `From: <sip:caller@127.0.0.1:${sip.port}>;tag=caller${calls}`,
      `To: <sip:${user}@127.0.0.1>${toTag ? `;tag=${toTag}` : ''}`,
      `Call-ID: ${callId}`,
      `CSeq: ${cseq} ${method}`,
      `Contact: <sip:caller@127.0.0.1:${sip.port}>`,
      ...(body ? ['Content-Type: application/sdp'] : []),
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n')
  const sdp = `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${rtp.port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n`
  try {
    sip.send(request('INVITE', 1, '', sdp))
    const ok = (await sip.waitFor((m: SipMessage) => m.kind === 'response' && m.status === 200, 15_000)) as SipResponse
    const answeredAt = performance.now()
    const toTag = /tag=([^;>\s]+)/.exec(header(ok, 'to')!)![1]!
    sip.send(request('ACK', 1, toTag))
    await rtp.waitFor(() => rtp.received.some((r) => peak(r.packet.payload) > 1000), 15_000)
    const heard = rtp.received.find((r) => peak(r.packet.payload) > 1000)!.atMs - answeredAt
    sip.send(request('BYE', 2, toTag))
    await sip.waitFor((m: SipMessage) => m.kind === 'response' && m.status === 200 && header(m, 'cseq') === '2 BYE')
    return heard
  } finally {
    sip.close()
    rtp.close()
  }
}
