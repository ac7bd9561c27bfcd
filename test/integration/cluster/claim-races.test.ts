// Two nodes claiming from one PostgreSQL database at the same moment, each with its own
// connection pool as separate processes would have: every webhook delivery and every call
// analysis is claimed by exactly one of them, and a campaign's maxConcurrent holds across both.
import { afterAll, beforeAll, expect } from 'bun:test'
import { claimNext, type Claim } from '../../../src/features/campaigns/claims.ts'
import { AnalysisWorker } from '../../../src/features/calls/index.ts'
import { type DbHandle, openPostgres } from '../../../src/platform/db/index.ts'
import { createLogger } from '../../../src/platform/log.ts'
import { claimDue, enqueueWebhookEvent } from '../../../src/features/webhooks/outbox.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'
import { untilAsync } from '../../helpers/until.ts'

const pgTest = testNeedingPackage('postgresql', postgresInstalled())

let t: TestAppliance
let x: CallSetup
let nodeA: DbHandle
let nodeB: DbHandle

beforeAll(async () => {
  if (!postgresInstalled()) return
  const url = await (await sharedPostgres()).createDatabase('races')
  // the appliance migrates and serves the API; its own workers are stopped so only the test claims
  t = await startTestAppliance({ DATABASE_URL: url, BACKGROUND_POLL_MS: 3_600_000 })
  t.appliance.campaigns.stop()
  x = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound' })
  nodeA = openPostgres(url, 4)
  nodeB = openPostgres(url, 4)
})
afterAll(async () => {
  await nodeA?.close()
  await nodeB?.close()
  await t?.stop()
})

/** Runs `claim` on both nodes at once, round after round, until neither gets anything. */
async function race<T>(claim: (h: DbHandle, node: string) => Promise<T[]>): Promise<Map<string, T[]>> {
  const got = new Map<string, T[]>([['a', []], ['b', []]])
  for (;;) {
    const [a, b] = await Promise.all([claim(nodeA, 'a'), claim(nodeB, 'b')])
    got.get('a')!.push(...a)
    got.get('b')!.push(...b)
    if (a.length === 0 && b.length === 0) return got
  }
}

pgTest('two nodes claiming the same due webhook deliveries at once: each delivery goes to exactly one', async () => {
  const now = new Date()
  const ids: string[] = []
  for (let i = 0; i < 120; i++) ids.push(await enqueueWebhookEvent(t.appliance.database.db, { workspaceId: t.workspaceId, url: 'https://example.com/hook', type: 'call.completed', data: { i }, now }))
  const got = await race(async (h, node) => (await claimDue(h.db, `node-${node}`, new Date(), 60_000, 7)).map((r) => r.id))
  const all = [...got.get('a')!, ...got.get('b')!]
  expect(all.sort()).toEqual([...ids].sort())
  expect(new Set(all).size).toBe(ids.length)
  // both took part: the race was real
  expect(got.get('a')!.length).toBeGreaterThan(0)
  expect(got.get('b')!.length).toBeGreaterThan(0)
})

pgTest('two analysis workers on two nodes analyse each ended call exactly once', async () => {
  const db = t.appliance.database.db
  const callIds: string[] = []
  for (let i = 0; i < 40; i++) callIds.push(await seedCall(db, { workspaceId: t.workspaceId, status: 'ended' }))
  await db.insertInto('call_analyses').values(callIds.map((id) => ({
    call_id: id, workspace_id: t.workspaceId, status: 'pending', run_after: new Date(0).toISOString(), created_at: new Date().toISOString(), attempts: 0, summary: '',
    is_voicemail: 0, model: '', input_tokens: 0, output_tokens: 0, cost: 0, sentiment: null, error: null, lease_owner: null, lease_expires_at: null, completed_at: null,
  }))).onConflict((oc) => oc.column('call_id').doNothing()).execute()
  const log = createLogger('silent')
  const workers = [nodeA, nodeB].map((h) => new AnalysisWorker({ db: h.db, log, prices: { llm: {}, tts: {}, stt: {}, telephony: { inbound: 0, outbound: 0 } } as never, pollMs: 5, concurrency: 3 }))
  for (const w of workers) w.start()
  try {
    await untilAsync(async () => {
      const left = await db.selectFrom('call_analyses').select('call_id').where('call_id', 'in', callIds).where('status', '!=', 'completed').execute()
      return left.length === 0
    }, 20_000, 'every analysis completed')
  } finally {
    await Promise.all(workers.map((w) => w.stop()))
  }
  // a claim counts an attempt: one each means no call was analysed twice
  const rows = await db.selectFrom('call_analyses').select(['call_id', 'attempts']).where('call_id', 'in', callIds).execute()
  expect(rows.map((r) => r.attempts)).toEqual(callIds.map(() => 1))
})

pgTest("two dispatchers claiming one campaign at once: each contact once, and the job's maxConcurrent holds across both", async () => {
  const contacts = Array.from({ length: 30 }, (_, i) => ({ to: `+1415555${String(1000 + i)}` }))
  const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts, settings: { maxConcurrent: 4, callingWindow: { start: '00:00', end: '24:00' } } } })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  const jobId = r.body.job.id as string
  await t.appliance.database.db.updateTable('outbound_jobs').set({ status: 'in_progress' }).where('id', '=', jobId).execute()
  const ctx = (node: string) => ({ owner: `node-${node}`, leaseMs: 60_000, nowMs: Date.now(), agentName: 'Reception', fromNumber: x.e164 })
  // three claims in flight per node, as a dispatcher filling several free slots has
  const got = await race(async (h, node) => {
    const claims = await Promise.all([1, 2, 3].map(() => claimNext(h.db, jobId, ctx(node))))
    return claims.filter((c): c is Claim => !!c && c !== 'again').map((c) => c.contact.id)
  })
  const all = [...got.get('a')!, ...got.get('b')!]
  expect(all).toHaveLength(4)
  expect(new Set(all).size).toBe(4)
  const job = await t.appliance.database.db.selectFrom('outbound_jobs').select(['active', 'pending']).where('id', '=', jobId).executeTakeFirstOrThrow()
  expect(job).toEqual({ active: 4, pending: 26 })
})
