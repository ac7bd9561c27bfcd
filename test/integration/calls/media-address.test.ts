// The SDP of a trusted trunk cannot aim the appliance's RTP at a forbidden address (issue 24,
// finding 8): an INVITE with c=IN IP4 169.254.169.254 gets 488 and no call, and a re-INVITE that
// moves a live call's media there gets 488 while the audio keeps going where it went.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import dgram from 'node:dgram'
import { header, type SipMessage, type SipResponse } from '../../../src/realtime/telephony/sip/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { until } from '../../helpers/until.ts'

let t: TestAppliance
let target: CallSetup
let peer: SipPeer
let rtp: dgram.Socket
let rtpPackets = 0

beforeAll(async () => {
  t = await startTestAppliance()
  // the number's trunk is 127.0.0.1: INVITEs from there are trusted without a challenge
  target = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:5999' })
  peer = await SipPeer.udp(t.appliance.sip.udp!)
  rtp = dgram.createSocket('udp4')
  rtp.on('message', () => rtpPackets++)
  await new Promise<void>((r) => rtp.bind(0, '127.0.0.1', () => r()))
})

afterAll(async () => {
  peer?.close()
  rtp?.close()
  await t?.stop()
})

const sdp = (ip: string, port: number) =>
  `v=0\r\no=- 1 1 IN IP4 ${ip}\r\ns=-\r\nc=IN IP4 ${ip}\r\nt=0 0\r\nm=audio ${port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n`

function request(method: string, callId: string, cseq: number, opts: { body?: string; toTag?: string; branchOf?: string } = {}): string {
  const body = opts.body ?? ''
  return [
    `${method} sip:${target.e164}@127.0.0.1:${t.appliance.sip.udp} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${callId}${cseq}${opts.branchOf ?? method};rport`,
    'Max-Forwards: 70',
    `From: <sip:+14155550111@127.0.0.1:${peer.port}>;tag=caller`,
    `To: <sip:${target.e164}@127.0.0.1>${opts.toTag ? `;tag=${opts.toTag}` : ''}`,
    `Call-ID: ${callId}`,
    `CSeq: ${cseq} ${method}`,
    `Contact: <sip:caller@127.0.0.1:${peer.port}>`,
    ...(body ? ['Content-Type: application/sdp'] : []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n')
}

const finalTo = (callId: string, cseq: number) => (m: SipMessage): m is SipResponse =>
  m.kind === 'response' && m.status >= 200 && header(m, 'call-id') === callId && header(m, 'cseq') === `${cseq} INVITE`
const toTag = (res: SipResponse) => /;\s*tag=([^;]+)/.exec(header(res, 'to')!)![1]!
const callsNow = async () => ((await t.api('GET', '/api/calls?limit=100')).body.calls as any[]).length

test('an INVITE over the trusted trunk with c=IN IP4 169.254.169.254 gets 488 Not Acceptable Here and no call is created', async () => {
  const before = await callsNow()
  peer.send(request('INVITE', 'probe-metadata', 1, { body: sdp('169.254.169.254', 40000) }))
  const res = await peer.waitFor(finalTo('probe-metadata', 1), 10_000)
  expect(res.status).toBe(488)
  // the ACK of a non-2xx final response is part of the INVITE's transaction (same branch)
  peer.send(request('ACK', 'probe-metadata', 1, { toTag: toTag(res), branchOf: 'INVITE' }))
  // no call row, so no media session was ever started for it
  expect(await callsNow()).toBe(before)
})

test('a re-INVITE moving a live call to 169.254.169.254 gets 488 and the audio keeps going to the old address', async () => {
  const port = (rtp.address() as { port: number }).port
  peer.send(request('INVITE', 'live-call', 1, { body: sdp('127.0.0.1', port) }))
  const ok = await peer.waitFor(finalTo('live-call', 1), 10_000)
  expect(ok.status).toBe(200)
  const tag = toTag(ok)
  peer.send(request('ACK', 'live-call', 1, { toTag: tag }))
  await until(() => rtpPackets > 10, 10_000)

  peer.send(request('INVITE', 'live-call', 2, { body: sdp('169.254.169.254', 40000), toTag: tag }))
  const refused = await peer.waitFor(finalTo('live-call', 2), 10_000)
  expect(refused.status).toBe(488)
  const after = rtpPackets
  await until(() => rtpPackets > after + 10, 10_000)

  peer.send(request('BYE', 'live-call', 3, { toTag: tag }))
  await peer.waitFor((m) => m.kind === 'response' && header(m, 'cseq') === '3 BYE', 10_000)
}, 30_000)
