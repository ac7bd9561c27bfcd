// Two of our user agents calling each other: over TLS with a self-signed certificate made in
// the test, and over UDP and TCP for outcomes, CANCEL, DTMF and hang-up in both directions.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import tls from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SipError, UserAgent, type InboundCall } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'

const NUMBER = '+15550005555'
const SECURED = '+15550005599'
const SDP = (port: number) => `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n`
const timers = { t1: 50, t2: 400, t4: 200, timerD: 200 }

let dir: string
let cert: string
let callee: UserAgent
let caller: UserAgent
let onCall: (call: InboundCall) => void = (call) => call.answer(SDP(42000))

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sip-tls-'))
  const gen = Bun.spawnSync([
    'openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ])
  if (gen.exitCode !== 0) throw new Error(gen.stderr.toString())
  cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
  const directory = new InMemoryNumberDirectory([
    { number: NUMBER, trunkSources: ['127.0.0.1'] },
    { number: SECURED, trunkSources: [], credentials: { username: 'agent', password: 'pw' } },
  ])
  callee = new UserAgent({
    host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, tlsPort: 0, tlsCert: cert, tlsKey: readFileSync(join(dir, 'key.pem'), 'utf8'),
    directory, timers, minSessionExpiresSec: 1,
  })
  callee.on('call', (call) => onCall(call))
  caller = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, tlsCa: cert, directory: new InMemoryNumberDirectory([]), timers })
  await callee.start()
  await caller.start()
})

afterAll(async () => {
  await caller.stop()
  await callee.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function connected(transport: 'udp' | 'tcp' | 'tls') {
  const port = transport === 'tls' ? callee.ports.tls : transport === 'tcp' ? callee.ports.tcp : callee.ports.udp
  const incoming = callee.next('call')
  const out = await caller.placeCall({ target: `sip:${NUMBER}@127.0.0.1:${port};transport=${transport}`, from: { user: '+15550006666', displayName: 'Agent' }, sdp: SDP(43000) })
  const [inbound] = await incoming
  return { out, inbound }
}

describe('calls between two user agents', () => {
  test('a call over TLS 1.2+ with a self-signed certificate made in the test is answered and hung up', async () => {
    const { out, inbound } = await connected('tls')
    expect(inbound.info.remote.transport).toBe('tls')
    expect(inbound.info.from).toEqual({ displayName: 'Agent', uri: 'sip:+15550006666@127.0.0.1' })
    const [answer] = await out.next('answered')
    expect(answer).toContain('m=audio 42000')
    await inbound.next('active')
    const ended = inbound.next('ended')
    out.hangup()
    expect((await ended)[0]).toEqual({ reason: 'remote_hangup' })
  })

  test('session timers on our outbound call: the callee agrees, we refresh by UPDATE, the call outlives the interval', async () => {
    const incoming = callee.next('call')
    const out = await caller.placeCall({ target: `sip:${NUMBER}@127.0.0.1:${callee.ports.udp}`, from: { user: '1' }, sdp: SDP(1), sessionExpiresSec: 2 })
    const [inbound] = await incoming
    await inbound.next('active')
    // two refreshes, each due after half the 2 s interval: the call is 2 s old and still up
    await inbound.next('sessionRefresh')
    await inbound.next('sessionRefresh')
    expect(out.state).toBe('active')
    expect(inbound.state).toBe('active')
    const ended = inbound.next('ended')
    out.hangup()
    expect((await ended)[0]).toEqual({ reason: 'remote_hangup' })
  })

  test('the TLS listener refuses TLS 1.1', async () => {
    const err = await new Promise<Error | undefined>((res) => {
      const s = tls.connect({ host: '127.0.0.1', port: callee.ports.tls!, ca: cert, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => res(undefined))
      s.on('error', res)
    })
    expect(err).toBeInstanceOf(Error)
  })

  test.each(['udp', 'tcp'] as const)('over %s: DTMF by INFO reaches the callee and the callee hangs up', async (t) => {
    const { out, inbound } = await connected(t)
    await out.next('active')
    await inbound.next('active')
    const dtmf = inbound.next('dtmf')
    out.sendDtmf('#', 120)
    expect(await dtmf).toEqual(['#', 120])
    const ended = out.next('ended')
    inbound.hangup()
    expect((await ended)[0]).toEqual({ reason: 'remote_hangup' })
  })

  test('our side holds and unholds by re-INVITE; the other side sees hold and unhold', async () => {
    const { out, inbound } = await connected('udp')
    await out.next('active')
    await inbound.next('active')
    const hold = inbound.next('hold')
    expect(await out.hold()).toBe(true)
    await hold
    const unhold = inbound.next('unhold')
    expect(await inbound.unhold().then(() => out.unhold())).toBe(true)
    await unhold
    const ended = inbound.next('ended')
    out.hangup()
    await ended
  })

  test('early media: a 183 with SDP reaches the caller as progress with the SDP', async () => {
    onCall = (call) => call.ringing(SDP(44000))
    try {
      const { out, inbound } = await connected('udp')
      const early = new Promise<string | undefined>((res) => out.on('progress', (status, sdp) => status === 183 && res(sdp)))
      expect(await early).toContain('m=audio 44000')
      inbound.reject(603)
      expect((await out.next('ended'))[0]).toEqual({ reason: 'declined', status: 603 })
    } finally {
      onCall = (call) => call.answer(SDP(42000))
    }
  })

  test.each([
    [486, 'busy'], [480, 'no_answer'], [603, 'declined'], [500, 'failed'],
  ] as const)('a %i from the callee ends our outbound call as %s', async (status, reason) => {
    onCall = (call) => call.reject(status)
    try {
      const { out } = await connected('udp')
      expect((await out.next('ended'))[0]).toEqual({ reason, status })
    } finally {
      onCall = (call) => call.answer(SDP(42000))
    }
  })

  test('cancelling our ringing outbound call ends both sides with 487', async () => {
    onCall = (call) => call.ringing()
    try {
      const { out, inbound } = await connected('udp')
      await out.next('progress')
      const calleeEnded = inbound.next('ended')
      out.cancel()
      expect((await out.next('ended'))[0]).toEqual({ reason: 'cancelled', status: 487 })
      expect((await calleeEnded)[0]).toEqual({ reason: 'cancelled', status: 487 })
    } finally {
      onCall = (call) => call.answer(SDP(42000))
    }
  })

  test('a number with credentials is reached after a SHA-256 digest challenge; a wrong password gets 403 and no call', async () => {
    const target = `sip:${SECURED}@127.0.0.1:${callee.ports.udp}`
    const incoming = callee.next('call')
    const good = await caller.placeCall({ target, from: { user: '1' }, sdp: SDP(1), credentials: { username: 'agent', password: 'pw' } })
    const [call] = await incoming
    expect(call.info.number).toBe(SECURED)
    await good.next('answered')
    const calleeEnded = call.next('ended')
    good.hangup()
    await calleeEnded
    const bad = await caller.placeCall({ target, from: { user: '1' }, sdp: SDP(1), credentials: { username: 'agent', password: 'nope' } })
    expect((await bad.next('ended'))[0]).toEqual({ reason: 'failed', status: 403 })
    const none = await caller.placeCall({ target, from: { user: '1' }, sdp: SDP(1) })
    expect((await none.next('ended'))[0]).toEqual({ reason: 'failed', status: 401 })
    expect(callee.stats().calls).toBe(0)
  })

  test('a caller name with line breaks cannot inject headers: it arrives as one display name', async () => {
    const incoming = callee.next('call')
    const out = await caller.placeCall({ target: `sip:${NUMBER}@127.0.0.1:${callee.ports.udp}`, from: { user: '1', displayName: 'Eve\r\nX-Injected: 1' }, sdp: SDP(1) })
    const [inbound] = await incoming
    expect(inbound.info.from.displayName).toBe('Eve  X-Injected: 1')
    await inbound.next('active')
    const ended = inbound.next('ended')
    out.hangup()
    await ended
  })

  test('a target that is no SIP URI, or names an unknown transport, is refused and creates nothing', async () => {
    const before = caller.stats().calls
    await expect(caller.placeCall({ target: 'mailto:someone@example.com', from: { user: '1' }, sdp: SDP(1) })).rejects.toThrow(SipError)
    await expect(caller.placeCall({ target: 'sip:1@127.0.0.1;transport=sctp', from: { user: '1' }, sdp: SDP(1) })).rejects.toThrow('unsupported transport sctp')
    expect(caller.stats().calls).toBe(before)
  })

  test('an outbound INVITE over UDP that nobody answers ends by Timer B as timeout 408', async () => {
    const silent = await import('node:dgram').then((d) => d.createSocket('udp4'))
    await new Promise<void>((res) => silent.bind(0, '127.0.0.1', () => res()))
    const quick = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, timers: { t1: 10 }, directory: new InMemoryNumberDirectory([]) })
    await quick.start()
    let invites = 0
    silent.on('message', () => invites++)
    try {
      const out = await quick.placeCall({ target: `sip:1@127.0.0.1:${silent.address().port}`, from: { user: '1' }, sdp: SDP(1) })
      expect((await out.next('ended'))[0]).toEqual({ reason: 'timeout', status: 408 })
      // Timer A doubles from T1: sent at 0, 10, 30, 70, 150, 310 and 630 ms, Timer B fires at
      // 640 ms; the last copy may lose that race under load
      expect(invites).toBeGreaterThanOrEqual(6)
      expect(invites).toBeLessThanOrEqual(7)
    } finally {
      silent.close()
      await quick.stop()
    }
  })

  test('stopping the user agent while an outbound INVITE has had no answer at all ends that call (cancelled), and stop returns', async () => {
    const silent = await import('node:dgram').then((d) => d.createSocket('udp4'))
    await new Promise<void>((res) => silent.bind(0, '127.0.0.1', () => res()))
    const ua = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory: new InMemoryNumberDirectory([]) })
    await ua.start()
    try {
      const out = await ua.placeCall({ target: `sip:1@127.0.0.1:${silent.address().port}`, from: { user: '1' }, sdp: SDP(1) })
      const ended = out.next('ended')
      // no provisional response: RFC 3261 9.1 forbids the CANCEL, and the transactions end with the agent
      await ua.stop()
      expect((await ended)[0]).toEqual({ reason: 'cancelled' })
    } finally {
      silent.close()
    }
  })

  test('a call to a port where nobody listens over TCP ends as failed at once', async () => {
    const out = await caller.placeCall({ target: 'sip:1@127.0.0.1:9;transport=tcp', from: { user: '1' }, sdp: SDP(1) })
    expect((await out.next('ended'))[0]).toEqual({ reason: 'failed' })
  })
})
