// Refused inbound calls leave a line and a count (issue 23, "Logs"): raw UDP INVITEs to a running
// appliance, each from its own 127.x source so the per-source limiter of one test cannot touch
// another; the info line names the source, the number as dialled and the reason, and /metrics
// counts the refusal by reason.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { randomUUID } from 'node:crypto'
import { authorize, parseChallenge, type SipResponse } from '../../../src/realtime/telephony/sip/index.ts'
import type { TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'
import { startLoggedAppliance } from '../../helpers/logged-appliance.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { until, untilAsync } from '../../helpers/until.ts'

let t: TestAppliance & { logs: string[] }
let trunkOnly: CallSetup
let withCredentials: CallSetup
const peers: SipPeer[] = []

beforeAll(async () => {
  // a small burst, so the rate-limit test needs few requests; every other test sends at most 2 from its source
  t = await startLoggedAppliance({ SIP_REFUSAL_BURST: 3, SIP_REFUSALS_PER_SEC: 1 })
  trunkOnly = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:5999' })
  withCredentials = await setupCallTarget(t, { sipUsername: 'pbx', sipPassword: 'right-password' })
})
afterAll(async () => {
  for (const p of peers) p.close()
  await t?.stop()
})

async function peer(bind: string): Promise<SipPeer> {
  const p = await SipPeer.udp(t.appliance.sip.udp!, bind)
  peers.push(p)
  return p
}

function invite(p: SipPeer, user: string, o: { callId?: string; cseq?: number; authorization?: string } = {}): string {
  const callId = o.callId ?? randomUUID()
  const lines = [
    `INVITE sip:${user}@127.0.0.1:${t.appliance.sip.udp} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${p.port};branch=z9hG4bK${randomUUID().slice(0, 12)};rport`,
    'Max-Forwards: 70',
    `From: <sip:caller@127.0.0.1>;tag=${randomUUID().slice(0, 8)}`,
    `To: <sip:${user}@127.0.0.1>`,
    `Call-ID: ${callId}`,
    `CSeq: ${o.cseq ?? 1} INVITE`,
    `Contact: <sip:caller@127.0.0.1:${p.port}>`,
    ...(o.authorization ? [`Authorization: ${o.authorization}`] : []),
    'Content-Length: 0',
  ]
  p.send(`${lines.join('\r\n')}\r\n\r\n`)
  return callId
}

const finalFor = (p: SipPeer, callId: string, cseq = 1) =>
  p.waitFor((m): m is SipResponse => m.kind === 'response' && m.status >= 200 && m.headers.some((h) => h.name.toLowerCase() === 'call-id' && h.value === callId) && m.headers.some((h) => h.name.toLowerCase() === 'cseq' && h.value.startsWith(`${cseq} `)), 50_000)

const refusalLines = (source: string) =>
  t.logs.map((l) => JSON.parse(l) as Record<string, any>).filter((r) => r.event === 'sip_refused' && String(r.source).startsWith(`${source}:`))

async function refusedCount(reason: string): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text()
  const m = new RegExp(`^voice_agent_sip_refused_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(text)
  return m ? Number(m[1]) : 0
}

describe('refused inbound calls are logged at info and counted by reason', () => {
  test('an INVITE in national format from a trunk logs the source, the number as dialled and "unknown number"', async () => {
    const before = await refusedCount('unknown_number')
    const p = await peer('127.0.0.1')
    const national = trunkOnly.e164.slice(2) // +1415... dialled as 415...
    const res = await finalFor(p, invite(p, national))
    expect([401, 403]).toContain(res.status)
    await until(() => refusalLines('127.0.0.1').length > 0, 50_000)
    expect(refusalLines('127.0.0.1')[0]).toMatchObject({
      level: 30, reason: 'unknown_number', method: 'INVITE', transport: 'udp', requestUser: national, toUser: national,
      source: `127.0.0.1:${p.port}`, msg: 'sip request refused: unknown number',
    })
    expect(await refusedCount('unknown_number')).toBe(before + 1)
  })

  test('an INVITE to a trunk-only number from a source that is not its trunk logs "source is not a trunk"', async () => {
    const p = await peer('127.0.0.2')
    const res = await finalFor(p, invite(p, trunkOnly.e164))
    expect(res.status).toBe(401) // answered like a number with credentials, so scanners learn nothing
    await until(() => refusalLines('127.0.0.2').length > 0, 50_000)
    expect(refusalLines('127.0.0.2')[0]).toMatchObject({ level: 30, reason: 'not_trunk', requestUser: trunkOnly.e164, toUser: trunkOnly.e164, status: 401 })
    expect(await refusedCount('not_trunk')).toBe(1)
  })

  test('a wrong digest answer logs "bad digest"; the first challenge is no refusal', async () => {
    const p = await peer('127.0.0.4')
    const callId = invite(p, withCredentials.e164)
    const challenge = await finalFor(p, callId)
    expect(challenge.status).toBe(401)
    const ch = parseChallenge(challenge.headers.find((h) => h.name.toLowerCase() === 'www-authenticate')!.value)!
    const uri = `sip:${withCredentials.e164}@127.0.0.1:${t.appliance.sip.udp}`
    invite(p, withCredentials.e164, { callId, cseq: 2, authorization: authorize(ch, { username: 'pbx', password: 'wrong-password' }, 'INVITE', uri) })
    expect((await finalFor(p, callId, 2)).status).toBe(403)
    await until(() => refusalLines('127.0.0.4').length > 0, 50_000)
    const lines = refusalLines('127.0.0.4')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: 30, reason: 'bad_digest', status: 403, requestUser: withCredentials.e164 })
    expect(await refusedCount('bad_digest')).toBe(1)
  })

  test('a source past its refusal burst is ignored, logged once as rate-limited, and every refusal is counted', async () => {
    const p = await peer('127.0.0.3')
    const unknownBefore = await refusedCount('unknown_number')
    // three refusals spend the burst of 3 (each answered), the next ones get no answer at all
    // (a slow machine may have refilled one token meanwhile: then one more is answered)
    for (let i = 0; i < 3; i++) expect((await finalFor(p, invite(p, '+15550000000'))).status).toBe(401)
    for (let i = 0; i < 4; i++) invite(p, '+15550000000')
    const counted = async () => (await refusedCount('unknown_number')) - unknownBefore + (await refusedCount('rate_limited'))
    await untilAsync(async () => (await counted()) === 7, 50_000, 'seven refusals counted', 100)
    expect(await refusedCount('rate_limited')).toBeGreaterThanOrEqual(3)
    const lines = refusalLines('127.0.0.3')
    // one line per reason at once; the repeats wait for the interval's summary line
    expect(lines.map((l) => l.reason)).toEqual(['unknown_number', 'rate_limited'])
    expect(lines[1]).toMatchObject({ level: 30, requestUser: '+15550000000', msg: 'sip request refused: source rate-limited' })
    expect(lines[1]?.status).toBeUndefined()
  })
})
