// The fuzz suite: generated bad bodies, query strings and path parameters against every route of
// the appliance's own OpenAPI document. No answer is a 5xx, every 4xx is the one error body, no
// answer exceeds 64 KiB, and no request holds the event loop 50 ms. A fixed seed and a bounded
// number of cases keep it fast and repeatable; `npm run fuzz -- --seed N --cases M` runs longer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { TestAppliance } from '../helpers/appliance.ts'
import { fuzzApi, startFuzzAppliance } from '../helpers/fuzz-api.ts'

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
