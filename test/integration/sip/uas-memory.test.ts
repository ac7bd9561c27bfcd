// At 1,000 calls/s some 64,000 server transactions wait out Timers L and J (32 s) after their
// calls ended. Each must be small: no parsed request, no ended call behind it.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { header, UserAgent, type InboundCall, type SipMessage, type SipResponse } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { until } from '../../helpers/until.ts'

const NUMBER = '+15550002222'
const SDP = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n'
const CALLS = 20

let ua: UserAgent
let peer: SipPeer
const requests: WeakRef<SipMessage>[] = []
const calls: WeakRef<InboundCall>[] = []

beforeEach(async () => {
  const directory = new InMemoryNumberDirectory([{ number: NUMBER, trunkSources: ['127.0.0.1'] }])
  ua = new UserAgent({
    host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory,
    observe: (direction, msg) => {
      if (direction === 'in' && msg.kind === 'request' && msg.method !== 'ACK') requests.push(new WeakRef(msg))
    },
  })
  ua.on('call', (c) => {
    calls.push(new WeakRef(c))
    c.answer(SDP)
  })
  await ua.start()
  peer = await SipPeer.udp(ua.ports.udp!)
})

afterEach(async () => {
  peer.close()
  await ua.stop()
})

function request(method: string, callId: string, cseq: number, toTag = '', body = ''): string {
  return [
    `${method} sip:${NUMBER}@127.0.0.1:${ua.ports.udp} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${method}${callId}`,
    'Max-Forwards: 70',
    `From: <sip:caller@127.0.0.1:${peer.port}>;tag=from${callId}`,
    `To: <sip:${NUMBER}@127.0.0.1>${toTag ? `;tag=${toTag}` : ''}`,
    `Call-ID: ${callId}`,
    `CSeq: ${cseq} ${method}`,
    `Contact: <sip:caller@127.0.0.1:${peer.port}>`,
    ...(body ? ['Content-Type: application/sdp'] : []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n')
}

const response = (callId: string, status: number, method: string) => (m: SipMessage): m is SipResponse =>
  m.kind === 'response' && m.status === status && header(m, 'call-id') === callId && header(m, 'cseq')!.endsWith(method)

test('ended calls and their requests are not kept by the transactions that absorb retransmissions for 32 s', async () => {
  for (let i = 0; i < CALLS; i++) {
    const callId = `mem-${i}-${Date.now()}`
    peer.send(request('INVITE', callId, 1, '', SDP))
    const ok = await peer.waitFor(response(callId, 200, 'INVITE'))
    const toTag = /tag=([^;>\s]+)/.exec(header(ok, 'to')!)![1]!
    peer.send(request('ACK', callId, 1, toTag))
    peer.send(request('BYE', callId, 2, toTag))
    await peer.waitFor(response(callId, 200, 'BYE'))
  }
  await until(() => ua.stats().calls === 0)
  // the INVITE (Timer L) and BYE (Timer J) transactions are all still there
  expect(ua.stats().serverTransactions).toBe(2 * CALLS)
  expect(requests.length).toBe(2 * CALLS)
  await new Promise((r) => setImmediate(r))
  Bun.gc(true)
  // the collector scans the stack conservatively: one stray survivor is not a leak, all of them are
  expect(calls.filter((r) => r.deref()).length).toBeLessThanOrEqual(2)
  expect(requests.filter((r) => r.deref()).length).toBeLessThanOrEqual(2)
})
