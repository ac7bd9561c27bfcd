// WEB_CALLS_MAX is shared out: one workspace holds at most its share (WEB_CALLS_SHARE percent), so
// its web calls that never connect cannot refuse another workspace's calls; and an offer ICE or
// DTLS could never start with is refused at once (422), not holding a place until the connect
// deadline.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { apiClient, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { gatheredOffer, loopbackPeer } from '../../helpers/loopback-peer.ts'
import { startWebCall } from '../../helpers/web-client.ts'

let t: TestAppliance
let offer: string
let agentId: string
let tenant: { key: string; agentId: string }
const closers: (() => Promise<unknown>)[] = []

const agentBody = { name: 'Desk' }

beforeAll(async () => {
  t = await startTestAppliance({ WEB_CALLS_MAX: 4, WEB_CALLS_SHARE: 50, WEB_CALL_CONNECT_MS: 60_000, CALL_DRAIN_MS: 500, WEBRTC_HOST_ADDRESSES: '127.0.0.1', TTS_PROVIDER: 'flite' })
  agentId = (await t.api('POST', '/api/agents', { body: agentBody })).body.agent.id
  const made = await t.api('POST', '/api/workspaces', { body: { name: 'Tenant' } })
  const api = apiClient(t.url, made.body.apiKey.key)
  tenant = { key: made.body.apiKey.key, agentId: (await api('POST', '/api/agents', { body: agentBody })).body.agent.id }
  const { pc } = loopbackPeer()
  closers.push(() => pc.close())
  offer = await gatheredOffer(pc)
})

afterAll(async () => {
  for (const c of closers) await c().catch(() => {})
  await t?.stop()
})

/** Offers `sdp` and never takes the answer: a web call that holds its place without connecting. */
async function offerOnly(key: string, agent: string, sdp = offer) {
  const res = await fetch(`${t.url}/api/agents/${agent}/web-calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sdp }),
  })
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any }
}

test('an offer without ICE credentials, a DTLS fingerprint or any candidate is refused at once with 422 and holds no place', async () => {
  const noIce = offer.split('\r\n').filter((l) => !l.startsWith('a=ice-ufrag') && !l.startsWith('a=ice-pwd')).join('\r\n')
  const noFingerprint = offer.split('\r\n').filter((l) => !l.startsWith('a=fingerprint')).join('\r\n')
  const noCandidate = offer.split('\r\n').filter((l) => !l.startsWith('a=candidate')).join('\r\n').replace(/\r\n$/, '') + '\r\na=end-of-candidates\r\n'
  for (const [sdp, why] of [[noIce, /ICE credentials/], [noFingerprint, /fingerprint/], [noCandidate, /candidate/]] as const) {
    const r = await offerOnly(t.adminKey, agentId, sdp)
    expect(r.status, JSON.stringify(r.body)).toBe(422)
    expect(r.body.error.message).toMatch(why)
    expect(r.body.error.details.fields[0].path).toBe('sdp')
  }
  // none of them took a place: the workspace's whole share is still free
  const calls = (await t.api('GET', '/api/calls?limit=100')).body.calls
  expect(calls).toEqual([])
})

test("one workspace's unanswered web calls stop at its share and do not refuse another workspace's web call", async () => {
  for (let i = 0; i < 2; i++) expect((await offerOnly(t.adminKey, agentId)).status).toBe(201)
  const over = await offerOnly(t.adminKey, agentId)
  expect(over.status).toBe(503)
  expect(over.body.error.details.reason).toBe('web_share')
  expect(Number(over.retryAfter)).toBeGreaterThan(0)
  expect(await (await fetch(`${t.url}/metrics`)).text()).toMatch(/^voice_agent_calls_refused_total\{kind="web",reason="web_share"\} 1$/m)
  const other = await startWebCall(t.url, tenant.key, tenant.agentId)
  closers.push(() => other.close())
  await other.connected
  await other.hangUp()
}, 30_000)
