// The fuzz suite: generated bad bodies, query strings and path parameters against every route of
// the appliance's own OpenAPI document. No answer is a 5xx, every 4xx is the one error body, no
// answer exceeds 64 KiB, and no request holds the event loop 50 ms. A fixed seed and a bounded
// number of cases keep it fast and repeatable; `npm run fuzz -- --seed N --cases M` runs longer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { TestAppliance } from '../helpers/appliance.ts'
import { fuzzApi, offerArb, startFuzzAppliance } from '../helpers/fuzz-api.ts'
import { connectStream } from '../helpers/media-stream-client.ts'

const SEED = 20261123
const CASES_PER_ROUTE = 80

let t: TestAppliance
let ids: string[]
let stop: () => Promise<void>
beforeAll(async () => {
  ;({ t, ids, stop } = await startFuzzAppliance())
})
afterAll(() => stop())

test('generated bad requests on every route: no 5xx, the error body on every 4xx, answers under 64 KiB, no event-loop stall', async () => {
  const run = await fuzzApi({ baseUrl: t.url, key: t.adminKey, workspaceId: t.workspaceId, ids, seed: SEED, cases: CASES_PER_ROUTE })
  expect(run.findings).toEqual([])
  expect(run.routes).toBeGreaterThan(30)
  expect(run.requests).toBeGreaterThanOrEqual(run.routes * CASES_PER_ROUTE)
}, 60_000)

test('fuzzed WebRTC offers (lines dropped, doubled, garbage, hostile candidates) are answered 201, 422 or 503 with the error body, and the appliance stays up', async () => {
  // the route fuzz above may have deleted its agent: a fresh one
  const agentId = (await t.api('POST', '/api/agents', { body: { name: 'Offered' } })).body.agent.id as string
  const seen = new Map<number, number>()
  const offers = fc.sample(offerArb, { seed: SEED, numRuns: 40 })
  for (const sdp of offers) {
    const r = await t.api('POST', `/api/agents/${agentId}/web-calls`, { body: { sdp } })
    seen.set(r.status, (seen.get(r.status) ?? 0) + 1)
    expect({ status: r.status, ok: [201, 422, 503].includes(r.status) }).toEqual({ status: r.status, ok: true })
    if (r.status !== 201) expect(Object.keys(r.body.error).sort()).toEqual(expect.arrayContaining(['code', 'message', 'requestId']))
    else await t.api('DELETE', `/api/agents/${agentId}/web-calls/${r.body.callId}`)
  }
  // some offers are whole enough to be answered, and some broken enough to be refused
  expect(seen.get(201) ?? 0).toBeGreaterThan(0)
  expect(seen.get(422) ?? 0).toBeGreaterThan(0)
  expect((await fetch(`${t.url}/health`)).status).toBe(200)
}, 60_000)

test('fuzzed media-stream frames are closed with a documented code or read, and the appliance stays up', async () => {
  const agentId = (await t.api('POST', '/api/agents', { body: { name: 'Streamed', welcome: { mode: 'agent_speaks_first', message: 'Hello.' } } })).body.agent.id as string
  const frame = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc.record({ event: fc.constantFrom('media', 'mark', 'clear', 'dtmf', 'stop', 'start', 'connected', '__proto__'), media: fc.record({ payload: fc.oneof(fc.base64String({ maxLength: 400 }), fc.string()) }, { requiredKeys: [] }), mark: fc.record({ name: fc.string() }, { requiredKeys: [] }), dtmf: fc.record({ digit: fc.string({ maxLength: 3 }) }, { requiredKeys: [] }) }, { requiredKeys: ['event'] }).map((v) => JSON.stringify(v)),
    fc.uint8Array({ maxLength: 700 }),
    fc.string({ maxLength: 200 }),
  )
  const sessions = fc.sample(fc.array(frame, { minLength: 1, maxLength: 6 }), { seed: SEED, numRuns: 25 })
  const closes = new Set<number>()
  for (const frames of sessions) {
    const c = connectStream(t.url, agentId, t.adminKey, frames.some((f) => f instanceof Uint8Array) ? 'pcm16' : 'mulaw')
    await c.started
    for (const f of frames) c.send(f)
    c.send({ event: 'stop' })
    closes.add((await c.closed).code)
  }
  for (const code of closes) expect([1000, 1003, 1007, 1008, 1009]).toContain(code)
  expect((await fetch(`${t.url}/health`)).status).toBe(200)
}, 60_000)
