// Campaign events leave through the signed webhook outbox: job.started, every call's
// call.completed with its contact, and job.completed, to the job's agent's webhookUrl.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { startCallees } from '../../helpers/campaign-callees.ts'
import { setupCallTarget } from '../../helpers/calls.ts'
import { campaignTarget, waitForJob } from '../../helpers/jobs.ts'
import { until } from '../../helpers/until.ts'
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts'

let t: TestAppliance
let rx: Receiver

beforeAll(async () => {
  rx = startReceiver()
  t = await startTestAppliance({ WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, BACKGROUND_POLL_MS: 50 })
})
afterAll(async () => {
  await t?.stop()
  await rx?.stop()
})

test('a campaign sends job.started, a call.completed with the contact for each call, and job.completed, all signed', async () => {
  // kind 1 answers as a person
  const contacts = [0, 1].map((i) => ({ to: `+14155550${1}${String(i).padStart(2, '0')}`, dynamicVariables: { name: `Person ${i}` } }))
  const callees = await startCallees(contacts.length, 60)
  const target = await campaignTarget(t, callees.port, { agent: { webhookUrl: rx.url } })
  const created = await t.api('POST', '/api/outbound/jobs', {
    body: { agentId: target.agentId, phoneNumberId: target.numberId, contacts, settings: { maxConcurrent: 2, callingWindow: { start: '00:00', end: '24:00' } } },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const jobId = created.body.job.id
  await waitForJob(t, jobId, (j) => j.status === 'completed', 60_000)

  const { secret } = (await t.api('GET', `/api/workspaces/${t.workspaceId}/webhook-secret`)).body
  const verifier = new Webhook(secret)
  const events = () => rx.received.map((r) => verifier.verify(r.body, r.headers) as { type: string; data: any })
  await until(() => events().filter((e) => e.type === 'call.completed').length === 2 && events().some((e) => e.type === 'job.completed'), 30_000, 'campaign webhooks')
  const all = events()
  const started = all.find((e) => e.type === 'job.started')!
  expect(started.data.job).toMatchObject({ id: jobId, totalContacts: 2 })
  const finished = all.find((e) => e.type === 'job.completed')!
  expect(finished.data.job).toMatchObject({ id: jobId, status: 'completed', completedContacts: 2 })
  const calls = all.filter((e) => e.type === 'call.completed')
  expect(calls.map((e) => e.data.contact.to).sort()).toEqual(contacts.map((c) => c.to).sort())
  for (const c of calls) {
    expect(c.data.call.campaignId).toBe(jobId)
    expect(c.data.contact).toMatchObject({ attempts: 1, dynamicVariables: { name: expect.stringMatching(/^Person \d$/) } })
  }
  await callees.proc.exited
}, 90_000)

test('a campaign call that cannot be placed still ends through the one finalisation: a signed call.completed and an analysis', async () => {
  // a trunk whose host does not resolve (RFC 2606 .invalid): the dial throws before any INVITE
  const target = await setupCallTarget(t, { trunkUri: 'sip:trunk.invalid', direction: 'outbound', agent: { webhookUrl: rx.url } })
  const to = '+14155550177'
  const created = await t.api('POST', '/api/outbound/jobs', {
    body: { agentId: target.agentId, phoneNumberId: target.numberId, contacts: [{ to }], settings: { maxConcurrent: 1, retryAttempts: 0, callingWindow: { start: '00:00', end: '24:00' } } },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const jobId = created.body.job.id
  await waitForJob(t, jobId, (j) => j.status === 'completed', 60_000)
  // on both databases (this file also runs in the PostgreSQL pass)
  const db = t.appliance.database.db
  const call = (await db.selectFrom('calls').select(['id', 'status', 'outcome']).where('outbound_job_id', '=', jobId).executeTakeFirst())!
  expect(call).toMatchObject({ status: 'ended', outcome: 'failed' })
  expect(await db.selectFrom('call_analyses').select('call_id').where('call_id', '=', call.id).executeTakeFirst()).toMatchObject({ call_id: call.id })
  const { secret } = (await t.api('GET', `/api/workspaces/${t.workspaceId}/webhook-secret`)).body
  const verifier = new Webhook(secret)
  const completed = () => rx.received.map((r) => verifier.verify(r.body, r.headers) as { type: string; data: any }).filter((e) => e.type === 'call.completed' && e.data.call.id === call.id)
  await until(() => completed().length === 1, 90_000, 'call.completed of the call that could not be placed')
  expect(completed()[0]!.data.contact).toMatchObject({ to })
}, 150_000)
