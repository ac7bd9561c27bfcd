// Inbound call flows against the running user agent, driven by a raw UDP peer so each step
// of RFC 3261 is visible: answer, ACK, BYE, retransmissions, CANCEL, re-INVITE, refusals, stop.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { UserAgent, header, responseTo, serialize, text, type InboundCall, type SipMessage, type SipRequest, type SipResponse } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { until } from '../../helpers/until.ts'

const NUMBER = '+15550001111'
const SDP = (dir = 'sendrecv', port = 40000) =>
  `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=${dir}\r\n`

let ua: UserAgent
let peer: SipPeer
let calls: InboundCall[]
let seq = 0

beforeEach(async () => {
  const directory = new InMemoryNumberDirectory([{ number: NUMBER, trunkSources: ['127.0.0.1'], context: { agent: 'a1' } }])
  ua = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory, timers: { t1: 20, t2: 160, t4: 100, timerD: 100 }, minSessionExpiresSec: 1 })
  calls = []
  ua.on('call', (c) => calls.push(c))
  await ua.start()
  peer = await SipPeer.udp(ua.ports.udp!)
})

afterEach(async () => {
  peer.close()
  await ua.stop()
})

interface Leg {
  callId: string
  fromTag: string
  toTag?: string
  cseq: number
}

function newLeg(): Leg {
  seq++
  return { callId: `call-${seq}-${Date.now()}`, fromTag: `ft${seq}`, cseq: 1 }
}

function req(leg: Leg, method: string, opts: { branch?: string; body?: string; to?: string; cseq?: number; extra?: string[] } = {}): string {
  const body = opts.body ?? ''
  const to = `<sip:${opts.to ?? NUMBER}@127.0.0.1>${leg.toTag && method !== 'CANCEL' ? `;tag=${leg.toTag}` : ''}`
  const cseqMethod = method
  return [
    `${method} sip:${opts.to ?? NUMBER}@127.0.0.1:${ua.ports.udp} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=${opts.branch ?? 'z9hG4bK' + Math.random().toString(36).slice(2)};rport`,
    'Max-Forwards: 70',
    `From: "Caller" <sip:caller@127.0.0.1:${peer.port}>;tag=${leg.fromTag}`,
    `To: ${to}`,
    `Call-ID: ${leg.callId}`,
    `CSeq: ${opts.cseq ?? leg.cseq} ${cseqMethod}`,
    `Contact: <sip:caller@127.0.0.1:${peer.port}>`,
    ...(opts.extra ?? []),
    ...(body ? ['Content-Type: application/sdp'] : []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n')
}

const isResponse = (leg: Leg, status: number, method = 'INVITE') => (m: SipMessage): m is SipResponse =>
  m.kind === 'response' && m.status === status && header(m, 'call-id') === leg.callId && header(m, 'cseq')!.endsWith(method)

const isRequest = (leg: Leg, method: string) => (m: SipMessage): m is SipRequest =>
  m.kind === 'request' && m.method === method && header(m, 'call-id') === leg.callId

const nextCall = () => ua.next('call').then(([c]) => c)

async function answeredCall(leg: Leg): Promise<InboundCall> {
  const branch = 'z9hG4bKinv' + leg.callId
  const incoming = nextCall()
  peer.send(req(leg, 'INVITE', { branch, body: SDP() }))
  const call = await incoming
  call.answer(SDP('sendrecv', 50000))
  const ok = await peer.waitFor(isResponse(leg, 200))
  leg.toTag = /tag=([^;>\s]+)/.exec(header(ok, 'to')!)![1]
  const active = call.next('active')
  peer.send(req(leg, 'ACK'))
  await active
  return call
}

describe('inbound calls', () => {
  test('an INVITE to a known number from its trunk is offered, answered with our SDP, confirmed by ACK and ended by BYE', async () => {
    const leg = newLeg()
    const call = await answeredCall(leg)
    expect(call.info).toMatchObject({ number: NUMBER, context: { agent: 'a1' }, from: { displayName: 'Caller' } })
    expect(call.info.offer).toContain('m=audio 40000')
    expect(peer.received.some(isResponse(leg, 100))).toBe(true)
    const ok = peer.received.find(isResponse(leg, 200))!
    expect(text(ok.body)).toContain('m=audio 50000')
    expect(header(ok, 'via')).toContain(`rport=${peer.port}`)
    const ended = call.next('ended')
    leg.cseq++
    peer.send(req(leg, 'BYE'))
    await peer.waitFor(isResponse(leg, 200, 'BYE'))
    expect((await ended)[0]).toEqual({ reason: 'remote_hangup' })
    expect(ua.stats().dialogs).toBe(0)
  })

  test('a retransmitted INVITE makes one call', async () => {
    const leg = newLeg()
    const raw = req(leg, 'INVITE', { branch: 'z9hG4bKsame' + leg.callId, body: SDP() })
    const incoming = nextCall()
    peer.send(raw)
    const call = await incoming
    peer.send(raw)
    peer.send(raw)
    await until100s(leg, 3)
    call.reject(486)
    await peer.waitFor(isResponse(leg, 486))
    expect(calls).toHaveLength(1)
  })

  test('a 2xx never acknowledged is repeated, then the call ends with our BYE', async () => {
    const leg = newLeg()
    const incoming = nextCall()
    peer.send(req(leg, 'INVITE', { body: SDP() }))
    const call = await incoming
    const ended = call.next('ended')
    call.answer(SDP())
    const bye = await peer.waitFor(isRequest(leg, 'BYE'))
    expect(peer.received.filter(isResponse(leg, 200)).length).toBeGreaterThan(2)
    expect((await ended)[0].reason).toBe('no_ack')
    expect(header(bye, 'to')).toContain(`tag=${leg.fromTag}`)
  })

  test('CANCEL before the answer gets 200 and the INVITE 487', async () => {
    const leg = newLeg()
    const branch = 'z9hG4bKcancel' + leg.callId
    const incoming = nextCall()
    peer.send(req(leg, 'INVITE', { branch, body: SDP() }))
    const call = await incoming
    call.ringing()
    await peer.waitFor(isResponse(leg, 180))
    const ended = call.next('ended')
    peer.send(req(leg, 'CANCEL', { branch }))
    await peer.waitFor(isResponse(leg, 200, 'CANCEL'))
    await peer.waitFor(isResponse(leg, 487))
    expect((await ended)[0]).toEqual({ reason: 'cancelled', status: 487 })
  })

  test('re-INVITE with sendonly puts the call on hold and sendrecv takes it off, each answered to match', async () => {
    const leg = newLeg()
    const call = await answeredCall(leg)
    const hold = call.next('hold')
    leg.cseq++
    peer.send(req(leg, 'INVITE', { body: SDP('sendonly') }))
    const held = await peer.waitFor((m) => isResponse(leg, 200)(m) && header(m, 'cseq') === `${leg.cseq} INVITE`)
    await hold
    expect(text(held.body)).toContain('a=recvonly')
    peer.send(req(leg, 'ACK'))
    const unhold = call.next('unhold')
    leg.cseq++
    peer.send(req(leg, 'INVITE', { body: SDP('sendrecv') }))
    const resumed = await peer.waitFor((m) => isResponse(leg, 200)(m) && header(m, 'cseq') === `${leg.cseq} INVITE`)
    await unhold
    expect(text(resumed.body)).toContain('a=sendrecv')
    expect(call.held).toBe(false)
    peer.send(req(leg, 'ACK'))
    call.hangup()
    await peer.waitFor(isRequest(leg, 'BYE'))
  })

  test('glare: an offer from the peer while our re-INVITE is pending gets 491; ours then completes', async () => {
    const leg = newLeg()
    const call = await answeredCall(leg)
    const holding = call.hold()
    const ours = await peer.waitFor((m): m is SipRequest => isRequest(leg, 'INVITE')(m) && header(m, 'cseq') === '1 INVITE' && m.uri.includes(String(peer.port)))
    expect(text(ours.body)).toContain('a=sendonly')
    leg.cseq++
    peer.send(req(leg, 'INVITE', { body: SDP('sendonly') }))
    await peer.waitFor(isResponse(leg, 491))
    peer.send(serialize(responseTo(ours, 200, { headers: [{ name: 'Content-Type', value: 'application/sdp' }], body: SDP('recvonly') })))
    expect(await holding).toBe(true)
    await peer.waitFor((m) => isRequest(leg, 'ACK')(m) && header(m, 'cseq') === '1 ACK')
    call.hangup()
    await peer.waitFor(isRequest(leg, 'BYE'))
  })

  test('UPDATE with an inactive offer puts the call on hold without a new INVITE', async () => {
    const leg = newLeg()
    const call = await answeredCall(leg)
    const hold = call.next('hold')
    leg.cseq++
    peer.send(req(leg, 'UPDATE', { body: SDP('inactive') }))
    const res = await peer.waitFor(isResponse(leg, 200, 'UPDATE'))
    await hold
    expect(text(res.body)).toContain('a=inactive')
    call.hangup()
    await peer.waitFor(isRequest(leg, 'BYE'))
  })

  test('DTMF sent as INFO application/dtmf-relay is reported', async () => {
    const leg = newLeg()
    const call = await answeredCall(leg)
    const dtmf = call.next('dtmf')
    leg.cseq++
    peer.send(req(leg, 'INFO', { body: 'Signal=7\r\nDuration=250\r\n' }).replace('application/sdp', 'application/dtmf-relay'))
    await peer.waitFor(isResponse(leg, 200, 'INFO'))
    expect(await dtmf).toEqual(['7', 250])
  })

  test('BYE for a dialog we do not have gets 481', async () => {
    const leg = { ...newLeg(), toTag: 'nosuch' }
    peer.send(req(leg, 'BYE'))
    await peer.waitFor(isResponse(leg, 481, 'BYE'))
  })

  test('OPTIONS gets 200 with Allow and Accept', async () => {
    const leg = newLeg()
    peer.send(req(leg, 'OPTIONS'))
    const res = await peer.waitFor(isResponse(leg, 200, 'OPTIONS'))
    expect(header(res, 'allow')).toContain('INVITE')
    expect(header(res, 'accept')).toBe('application/sdp')
  })
})

describe('session timers (RFC 4028)', () => {
  async function timedCall(leg: Leg, extra: string[]) {
    const incoming = nextCall()
    peer.send(req(leg, 'INVITE', { body: SDP(), extra }))
    const call = await incoming
    call.answer(SDP())
    const ok = await peer.waitFor(isResponse(leg, 200))
    leg.toTag = /tag=([^;>\s]+)/.exec(header(ok, 'to')!)![1]
    peer.send(req(leg, 'ACK'))
    await call.next('active')
    return { call, ok }
  }

  test('a caller that refreshes gets the interval agreed with Require: timer, and our BYE when a refresh is missing', async () => {
    const leg = newLeg()
    const { call, ok } = await timedCall(leg, ['Session-Expires: 2;refresher=uac', 'Supported: timer'])
    expect(header(ok, 'session-expires')).toBe('2;refresher=uac')
    expect(header(ok, 'require')).toBe('timer')
    const ended = call.next('ended')
    await peer.waitFor(isRequest(leg, 'BYE'), 4000)
    expect((await ended)[0]).toEqual({ reason: 'timeout' })
  })

  test('when the caller wants us to refresh we send UPDATE with Session-Expires before the interval ends', async () => {
    const leg = newLeg()
    const { call } = await timedCall(leg, ['Session-Expires: 2;refresher=uas', 'Supported: timer'])
    const update = await peer.waitFor(isRequest(leg, 'UPDATE'), 4000)
    expect(header(update, 'session-expires')).toBe('2;refresher=uas')
    peer.send(serialize(responseTo(update, 200)))
    expect(call.state).toBe('active')
    call.hangup()
    await peer.waitFor(isRequest(leg, 'BYE'))
  })

  test("each refresh from the caller, by UPDATE or re-INVITE, restarts the interval: the BYE comes only once the refreshes stop", async () => {
    const leg = newLeg()
    // unrefreshed, a 3 s interval ends 2 s in (RFC 4028 section 10: a third before it lapses)
    const { call } = await timedCall(leg, ['Session-Expires: 3;refresher=uac', 'Supported: timer'])
    const ended = call.next('ended')
    // the caller refreshes every 800 ms for 3.2 s, past the 2 s an unrefreshed call lasts
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(800) // the caller's own pace, not a wait for the appliance
      leg.cseq++
      const method = i % 2 === 0 ? 'UPDATE' : 'INVITE'
      peer.send(req(leg, method, { body: method === 'INVITE' ? SDP() : '', extra: ['Session-Expires: 3;refresher=uac', 'Supported: timer'] }))
      const ok = await peer.waitFor(isResponse(leg, 200, method))
      expect(header(ok, 'session-expires')).toBe('3;refresher=uac')
      if (method === 'INVITE') peer.send(req(leg, 'ACK'))
      expect(call.state).toBe('active')
    }
    const lastRefresh = performance.now()
    await peer.waitFor(isRequest(leg, 'BYE'), 8000)
    expect(performance.now() - lastRefresh).toBeGreaterThanOrEqual(1950)
    expect((await ended)[0]).toEqual({ reason: 'timeout' })
  })

  test('an interval below our minimum gets 422 with Min-SE and creates nothing', async () => {
    const leg = newLeg()
    peer.send(req(leg, 'INVITE', { body: SDP(), extra: ['Session-Expires: 0', 'Supported: timer'] }))
    const res = await peer.waitFor(isResponse(leg, 422))
    expect(header(res, 'min-se')).toBe('1')
    expect(calls).toHaveLength(0)
  })
})

describe('refusals', () => {
  test('an unknown number gets 404 and creates nothing', async () => {
    const leg = newLeg()
    peer.send(req(leg, 'INVITE', { to: '+15559999999', body: SDP() }))
    await peer.waitFor(isResponse(leg, 404))
    expect(calls).toHaveLength(0)
    expect(ua.stats()).toMatchObject({ calls: 0, dialogs: 0 })
  })

  test('a known number from a source that is no trunk gets a challenge, then 403, and creates nothing', async () => {
    await ua.stop()
    const directory = new InMemoryNumberDirectory([{ number: NUMBER, trunkSources: ['192.0.2.10'] }])
    ua = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory, timers: { t1: 20 } })
    ua.on('call', (c) => calls.push(c))
    await ua.start()
    peer.close()
    peer = await SipPeer.udp(ua.ports.udp!)
    const leg = newLeg()
    peer.send(req(leg, 'INVITE', { body: SDP() }))
    const challenge = await peer.waitFor(isResponse(leg, 401))
    expect(header(challenge, 'www-authenticate')).toStartWith('Digest realm="127.0.0.1"')
    leg.cseq++
    peer.send(req(leg, 'INVITE', { body: SDP(), extra: ['Authorization: Digest username="x", realm="127.0.0.1", nonce="n", uri="sip:a@b", response="0"'] }))
    await peer.waitFor(isResponse(leg, 403))
    expect(calls).toHaveLength(0)
    expect(ua.stats()).toMatchObject({ calls: 0, dialogs: 0 })
  })

  test('a call nobody answers within the ring timeout gets 480 and ends as rejected', async () => {
    await ua.stop()
    ua = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, ringTimeoutMs: 100, timers: { t1: 20 },
      directory: new InMemoryNumberDirectory([{ number: NUMBER, trunkSources: ['127.0.0.1'] }]) })
    const incoming = nextCall()
    await ua.start()
    peer.close()
    peer = await SipPeer.udp(ua.ports.udp!)
    const leg = newLeg()
    peer.send(req(leg, 'INVITE', { body: SDP() }))
    const call = await incoming
    await peer.waitFor(isResponse(leg, 480))
    expect(call.endInfo).toEqual({ reason: 'rejected', status: 480 })
  })

  test('while stopping, a new INVITE gets 503 with Retry-After and the existing call finishes', async () => {
    const first = newLeg()
    const call = await answeredCall(first)
    const stopped = ua.stop(5000)
    const leg = newLeg()
    peer.send(req(leg, 'INVITE', { body: SDP() }))
    const res = await peer.waitFor(isResponse(leg, 503))
    expect(header(res, 'retry-after')).toBe('30')
    expect(call.state).toBe('active')
    first.cseq++
    peer.send(req(first, 'BYE'))
    await peer.waitFor(isResponse(first, 200, 'BYE'))
    await stopped
    ua = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory: new InMemoryNumberDirectory([]) })
    await ua.start()
  })
})

function until100s(leg: Leg, n: number): Promise<void> {
  return until(() => peer.received.filter(isResponse(leg, 100)).length >= n, 5000, `${n} 100 Trying`)
}
