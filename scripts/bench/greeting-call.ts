// One raw SIP call to an appliance with its own RTP socket: how long after its INVITE, and
// after the 200 OK, the caller hears the agent's first loud packet (its greeting), then BYE. For the benchmarks that
// compare a call on loaded engines with one that loads them.
import { decodeG711 } from '../../src/realtime/media/codec/index.ts'
import { header, type SipMessage, type SipResponse } from '../../src/realtime/telephony/sip/index.ts'
import { RtpPeer } from '../../test/helpers/rtp-peer.ts'
import { SipPeer } from '../../test/helpers/sip-peer.ts'

const peak = (payload: Uint8Array) => decodeG711('ulaw', payload).reduce((m, s) => Math.max(m, Math.abs(s)), 0)
let calls = 0

export interface GreetingDelay {
  /** ms from the INVITE sent (what the caller waits, ringing included) and from the 200 OK to the first packet of speech. */
  fromInvite: number
  fromAnswer: number
}

/** Calls `e164` at 127.0.0.1:`sipPort` and waits for the greeting. */
export async function greetingDelay(sipPort: number, e164: string): Promise<GreetingDelay> {
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
    const invitedAt = performance.now()
    sip.send(request('INVITE', 1, '', sdp))
    const ok = (await sip.waitFor((m: SipMessage) => m.kind === 'response' && m.status === 200, 15_000)) as SipResponse
    const answeredAt = performance.now()
    const toTag = /tag=([^;>\s]+)/.exec(header(ok, 'to')!)![1]!
    sip.send(request('ACK', 1, toTag))
    await rtp.waitFor(() => rtp.received.some((r) => peak(r.packet.payload) > 1000), 15_000)
    const heardAt = rtp.received.find((r) => peak(r.packet.payload) > 1000)!.atMs
    sip.send(request('BYE', 2, toTag))
    await sip.waitFor((m: SipMessage) => m.kind === 'response' && m.status === 200 && header(m, 'cseq') === '2 BYE')
    return { fromInvite: heardAt - invitedAt, fromAnswer: heardAt - answeredAt }
  } finally {
    sip.close()
    rtp.close()
  }
}
