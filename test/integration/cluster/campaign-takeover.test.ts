// A campaign of 200 contacts dialled by two appliance nodes on one PostgreSQL database, against
// SIPp callees (people, busy lines, phones that ring on). One node is killed with SIGKILL
// mid-way; the other finishes: every contact ends accounted for, and SIPp's own message log
// shows no number dialled twice.
import { afterAll, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { type DbHandle, openPostgres } from '../../../src/platform/db/index.ts'
import type { TestAppliance } from '../../helpers/appliance.ts'
import { type Callees, invitesByNumber, readMessages, startCallees } from '../../helpers/campaign-callees.ts'
import { clusterNodes, nodeApi, startClusterNode } from '../../helpers/cluster-node.ts'
import { campaignTarget } from '../../helpers/jobs.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'
import { untilAsync } from '../../helpers/until.ts'

const pgTest = testNeedingPackage('postgresql', postgresInstalled())
const { nodes, secretKeyFile } = clusterNodes()
let callees: Callees | undefined
let side: DbHandle | undefined
afterAll(async () => {
  callees?.proc.kill()
  await side?.close()
})

// +14155550KNN: K=1 a person (answers), K=2 busy, K=3 rings until cancelled (see uas-campaign.xml)
const contacts = [
  ...Array.from({ length: 50 }, (_, i) => `+141555501${String(i).padStart(2, '0')}`),
  ...Array.from({ length: 90 }, (_, i) => `+141555502${String(i).padStart(2, '0')}`),
  ...Array.from({ length: 60 }, (_, i) => `+141555503${String(i).padStart(2, '0')}`),
]

pgTest('200 contacts over two nodes, one killed mid-way: every contact accounted for, none dialled twice', async () => {
  const databaseUrl = await (await sharedPostgres()).createDatabase('campaign_takeover')
  const env = {
    CAMPAIGN_LEASE_MS: '3000', NODE_LEASE_MS: '3000', OUTBOUND_MAX_CALLS: '6', RECORD_CALLS: 'false',
    BARGE_IN_MAX_BACKCHANNEL_MS: '60000', BARGE_IN_MIN_SPEECH_MS: '60000',
  }
  const a = await startClusterNode({ databaseUrl, nodeId: 'node-a', secretKeyFile, env })
  nodes.push(a)
  const b = await startClusterNode({ databaseUrl, nodeId: 'node-b', secretKeyFile, env })
  nodes.push(b)
  const adminKey = readFileSync(join(a.dataDir, 'admin-api-key'), 'utf8').trim()
  const apiA = nodeApi(a, adminKey)
  const apiB = nodeApi(b, adminKey)
  const workspaceId = (await apiA('GET', '/api/workspaces')).body.workspaces[0].id as string

  callees = await startCallees(contacts.length, 240)
  const target = await campaignTarget({ api: apiA, workspaceId } as TestAppliance, callees.port)
  const created = await apiA('POST', '/api/outbound/jobs', {
    body: {
      agentId: target.agentId, phoneNumberId: target.numberId, name: 'two nodes', contacts: contacts.map((to) => ({ to })),
      settings: { maxConcurrent: 10, retryAttempts: 0, ringTimeoutMs: 1500, callingWindow: { start: '00:00', end: '24:00' } },
    },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const jobId = created.body.job.id as string
  side = openPostgres(databaseUrl, 1)
  const db = side.db
  const placedBy = async () =>
    Object.fromEntries((await sql<{ node_id: string; n: number }>`SELECT node_id, count(*) AS n FROM calls WHERE outbound_job_id = ${jobId} GROUP BY node_id`.execute(db)).rows.map((r) => [r.node_id, r.n]))

  // both nodes dial; A is killed with calls of its own in flight
  let inFlightOnA = 0
  await untilAsync(async () => {
    const by = await placedBy()
    inFlightOnA = Number((await sql<{ n: number }>`SELECT count(*) AS n FROM calls WHERE outbound_job_id = ${jobId} AND node_id = 'node-a' AND status != 'ended'`.execute(db)).rows[0]!.n)
    return (by['node-a'] ?? 0) + (by['node-b'] ?? 0) >= 60 && (by['node-b'] ?? 0) > 0 && inFlightOnA > 0
  }, 90_000, 'both nodes dialling, with calls in flight on A', 50)
  await a.kill()

  let job: any
  await untilAsync(async () => {
    job = (await apiB('GET', `/api/outbound/jobs/${jobId}`)).body.job
    return job?.status === 'completed'
  }, 150_000, 'the job completed by node B', 250)
  const p = job.progress
  expect(job.pendingContacts + job.activeContacts).toBe(0)
  expect(p.answered + p.noAnswer + p.busy + p.voicemail + p.failed).toBe(200)

  // the contacts: each closed, with one attempt
  const rows = await db.selectFrom('outbound_contacts').select(['to_number', 'status', 'attempts']).where('job_id', '=', jobId).execute()
  expect(rows).toHaveLength(200)
  expect(rows.filter((r) => r.status === 'pending' || r.status === 'dialing')).toEqual([])
  expect(new Set(rows.map((r) => r.attempts))).toEqual(new Set([1]))
  // A's calls cut by the kill were closed by B, counted as unanswered attempts
  const lost = await db.selectFrom('calls').select(['end_reason']).where('outbound_job_id', '=', jobId).where('node_id', '=', 'node-a').where('end_reason', 'in', ['node_lost', 'lease_expired']).execute()
  expect(lost.length).toBeGreaterThan(0)
  // every end goes through the one finalisation: each call B closed has its analysis
  const unanalysed = await db
    .selectFrom('calls')
    .select(['id', 'end_reason'])
    .where('outbound_job_id', '=', jobId)
    .where('end_reason', 'in', ['node_lost', 'lease_expired'])
    .where((eb) => eb.not(eb.exists(eb.selectFrom('call_analyses').select('call_id').whereRef('call_analyses.call_id', '=', 'calls.id'))))
    .execute()
  expect(unanalysed).toEqual([])
  expect(await db.selectFrom('calls').select('id').where('outbound_job_id', '=', jobId).where('status', '!=', 'ended').execute()).toEqual([])

  // SIPp's witness: no number got two INVITEs (an attempt cut by the kill is not retried: retryAttempts 0)
  const invites = invitesByNumber(readMessages(callees.messageFile))
  expect([...invites.values()].filter((n) => n > 1)).toEqual([])
  for (const n of invites.keys()) expect(contacts).toContain(n)
  const byNode = await placedBy()
  expect(byNode['node-a']).toBeGreaterThan(0)
  expect(byNode['node-b']).toBeGreaterThan(byNode['node-a']!)
  expect(await b.stop()).toBe(0)
}, 300_000)
