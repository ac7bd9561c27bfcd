// One raw INVITE with an audio offer from a fresh UDP peer, for tests of how a call is refused
// or answered: every message that came back is kept, so a test can check nothing was answered.
import { header, type SipMessage, type SipResponse } from '../../src/realtime/telephony/sip/index.ts'
import { SipPeer } from './sip-peer.ts'

export interface InviteResult {
  final: SipResponse
  /** Every response to the INVITE, provisional ones first. */
  responses: SipResponse[]
  /** After a 200: ACKs it, then answers the appliance's BYE with 200 and resolves. */
  ackAndAwaitBye(timeoutMs?: number): Promise<void>
  close(): void
}

export async function inviteOnce(sipPort: number, e164: string, timeoutMs = 10_000): Promise<InviteResult> {
  const peer = await SipPeer.udp(sipPort)
  const callId = `invite-${Math.random().toString(36).slice(2)}`
  const sdp = `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${peer.port + 2} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n`
  peer.send(
    `INVITE sip:${e164}@127.0.0.1:${sipPort} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${callId}\r\nFrom: <sip:caller@127.0.0.1>;tag=c\r\n` +
      `To: <sip:${e164}@127.0.0.1>\r\nCall-ID: ${callId}\r\nCSeq: 1 INVITE\r\nContact: <sip:caller@127.0.0.1:${peer.port}>\r\nMax-Forwards: 70\r\n` +
      `Content-Type: application/sdp\r\nContent-Length: ${sdp.length}\r\n\r\n${sdp}`,
  )
  const ours = (m: SipMessage): m is SipResponse => m.kind === 'response' && header(m, 'call-id') === callId
  const final = await peer.waitFor((m): m is SipResponse => ours(m) && m.status >= 200, timeoutMs)
  const base = (method: string, branch: string) =>
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${branch}\r\nFrom: <sip:caller@127.0.0.1>;tag=c\r\nTo: ${header(final, 'to')}\r\nCall-ID: ${callId}\r\n`
  const ackAndAwaitBye = async (byeTimeoutMs = 20_000) => {
    peer.send(`ACK sip:${e164}@127.0.0.1:${sipPort} SIP/2.0\r\n${base('ACK', `ack${callId}`)}CSeq: 1 ACK\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n`)
    const bye = await peer.waitFor((m) => m.kind === 'request' && m.method === 'BYE' && header(m, 'call-id') === callId, byeTimeoutMs)
    const h = (n: string) => header(bye, n)
    peer.send(`SIP/2.0 200 OK\r\nVia: ${h('via')}\r\nFrom: ${h('from')}\r\nTo: ${h('to')}\r\nCall-ID: ${callId}\r\nCSeq: ${h('cseq')}\r\nContent-Length: 0\r\n\r\n`)
  }
  return { final, responses: peer.received.filter(ours), ackAndAwaitBye, close: () => peer.close() }
}
