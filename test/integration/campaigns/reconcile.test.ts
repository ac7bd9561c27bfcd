// At start a node reconciles the attempts it left behind (its own leases) and those of lost
// nodes (expired leases), from their call rows; a live lease of another node is left alone.
import { afterAll, expect, test } from 'bun:test'
import { claimNext, type Claim } from '../../../src/features/campaigns/claims.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget } from '../../helpers/calls.ts'

let t: TestAppliance | undefined
afterAll(async () => {
  await t?.stop()
})

test("a restart closes its own and expired claims by the job's rules and leaves another node's live claim alone", async () => {
  t = await startTestAppliance({ NODE_ID: 'node-a' })
  t.appliance.campaigns.stop()
  const x = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound' })
  const contacts = ['+14155550160', '+14155550161', '+14155550162', '+14155550163'].map((to) => ({ to }))
  const r = await t.api('POST', '/api/outbound/jobs', {
    body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts, settings: { maxConcurrent: 4, retryAttempts: 1, retryDelayMs: 3_600_000, callingWindow: { start: '00:00', end: '24:00' } } },
  })
  const id = r.body.job.id
  const db = t.appliance.database.db
  const claim = async (owner: string, leaseMs: number) =>
    (await claimNext(db, id, { owner, leaseMs, nowMs: Date.now(), agentName: 'Reception', fromNumber: x.e164 })) as Claim
  const mine = await claim('node-a', 60_000) // this node, killed while the call rang
  const answered = await claim('node-a', 60_000) // this node, killed during an answered call
  const lost = await claim('node-b', -1) // another node, gone: its lease ran out
  const alive = await claim('node-c', 3_600_000) // another node, alive
  const sqlite = t.appliance.database.sqlite
  sqlite.query("update calls set status = 'ringing' where id in (?, ?, ?)").run(mine.callId, lost.callId, alive.callId)
  sqlite.query("update calls set status = 'in_progress', answered_at = ? where id = ?").run(new Date().toISOString(), answered.callId)

  const dataDir = t.dataDir
  await t.stop({ keepData: true })
  t = await startTestAppliance({ NODE_ID: 'node-a' }, dataDir)
  t.appliance.campaigns.stop()

  const byTo = new Map(((await t.api('GET', `/api/outbound/jobs/${id}/contacts`)).body.contacts as any[]).map((c) => [c.to, c]))
  expect(byTo.get('+14155550160')).toMatchObject({ status: 'pending', attempts: 1, lastOutcome: 'no_answer' }) // may have rung: retried
  expect(byTo.get('+14155550161')).toMatchObject({ status: 'completed', attempts: 1, lastOutcome: 'answered' })
  expect(byTo.get('+14155550162')).toMatchObject({ status: 'pending', attempts: 1, lastOutcome: 'no_answer' })
  expect(byTo.get('+14155550163')).toMatchObject({ status: 'dialing', attempts: 1 })
  const job = (await t.api('GET', `/api/outbound/jobs/${id}`)).body.job
  expect(job).toMatchObject({ pendingContacts: 2, activeContacts: 1, progress: { answered: 1 } })
  const calls = t.appliance.database.sqlite.query('select id, status, end_reason from calls where outbound_job_id = ? order by id').all(id) as any[]
  expect(calls.find((c) => c.id === lost.callId)).toMatchObject({ status: 'ended' })
})

test("an attempt whose node's lease ran out is closed through the one finalisation: its call gets an analysis and a call.completed", async () => {
  await t?.stop()
  t = await startTestAppliance({ NODE_ID: 'node-a', WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true })
  t.appliance.campaigns.stop()
  const x = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound', agent: { webhookUrl: 'http://127.0.0.1:9/hook' } })
  const r = await t.api('POST', '/api/outbound/jobs', {
    body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: [{ to: '+14155550170' }], settings: { maxConcurrent: 1, retryAttempts: 0, callingWindow: { start: '00:00', end: '24:00' } } },
  })
  const db = t.appliance.database.db
  // another node claimed the contact and rang, then was lost: its lease ran out, its call row is still open
  const lost = (await claimNext(db, r.body.job.id, { owner: 'node-b', leaseMs: -1, nowMs: Date.now(), agentName: 'Reception', fromNumber: x.e164 })) as Claim
  t.appliance.database.sqlite.query("update calls set status = 'ringing' where id = ?").run(lost.callId)

  await t.appliance.campaigns.start()
  const sqlite = t.appliance.database.sqlite
  expect(sqlite.query('select status, end_reason from calls where id = ?').get(lost.callId)).toMatchObject({ status: 'ended', end_reason: 'lease_expired' })
  expect(sqlite.query('select call_id from call_analyses where call_id = ?').get(lost.callId)).toMatchObject({ call_id: lost.callId })
  expect(sqlite.query("select event_type from webhook_deliveries where call_id = ? and event_type = 'call.completed'").all(lost.callId)).toHaveLength(1)
  t.appliance.campaigns.stop()
})
