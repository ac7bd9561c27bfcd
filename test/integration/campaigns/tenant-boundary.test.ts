// Campaigns, do-not-call and webhook deliveries seen from another workspace: every object of
// workspace A is "not found" for B's key, exactly like an id that does not exist, and B's
// requests change nothing in A.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { apiClient, type Api, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'

let t: TestAppliance
let a: CallSetup
let b: Api
let bWorkspace: string
let jobId: string

beforeAll(async () => {
  t = await startTestAppliance()
  a = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound' })
  const created = await t.api('POST', '/api/outbound/jobs', {
    body: { agentId: a.agentId, phoneNumberId: a.numberId, contacts: [{ to: '+14155550100' }], settings: { scheduling: { startAt: '2099-01-01T09:00:00', timezone: 'Europe/Paris' } } },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  jobId = created.body.job.id
  expect((await t.api('POST', `/api/workspaces/${t.workspaceId}/do-not-call`, { body: { number: '+14155550199' } })).status).toBe(200)
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
  b = apiClient(t.url, ws.body.apiKey.key)
  bWorkspace = ws.body.workspace.id
})
afterAll(async () => {
  await t?.stop()
})

const notFound = (r: { status: number; body: any }) => {
  expect(r.status).toBe(404)
  expect(r.body.error.code).toBe('not_found')
}

test("another workspace's key finds none of A's jobs, contacts or actions, just as for a missing id", async () => {
  for (const id of [jobId, 'job_missing']) {
    notFound(await b('GET', `/api/outbound/jobs/${id}`))
    notFound(await b('GET', `/api/outbound/jobs/${id}/contacts`))
    for (const action of ['pause', 'resume', 'cancel']) notFound(await b('POST', `/api/outbound/jobs/${id}/${action}`))
  }
  expect((await b('GET', '/api/outbound/jobs')).body.jobs).toEqual([])
  expect((await t.api('GET', `/api/outbound/jobs/${jobId}`)).body.job.status).toBe('scheduled')
})

test("a job in another workspace cannot use A's agent or number: the same answer as missing ones", async () => {
  const foreign = await b('POST', '/api/outbound/jobs', { body: { agentId: a.agentId, phoneNumberId: a.numberId, contacts: [{ to: '+14155550100' }] } })
  const missing = await b('POST', '/api/outbound/jobs', { body: { agentId: 'agent_missing', phoneNumberId: 'pn_missing', contacts: [{ to: '+14155550100' }] } })
  expect([foreign.status, foreign.body.error.code]).toEqual([422, 'validation_failed'])
  expect(foreign.status).toBe(missing.status)
  expect(foreign.body.error.code).toBe(missing.body.error.code)
  expect(foreign.body.error.details?.fields?.map((f: any) => f.path)).toEqual(missing.body.error.details?.fields?.map((f: any) => f.path))
})

test("a contacts preview with B's key cannot use A's agent (the answer of a missing one) and reads nothing of A's", async () => {
  const csv = { body: 'to,first\n+14155550100,Ann\n', headers: { 'content-type': 'text/csv' } }
  const foreign = await b('POST', `/api/outbound/jobs/preview?agentId=${a.agentId}`, csv)
  const missing = await b('POST', '/api/outbound/jobs/preview?agentId=agent_missing', csv)
  expect([foreign.status, foreign.body.error.code]).toEqual([422, 'validation_failed'])
  expect(foreign.body.error.details.fields).toEqual(missing.body.error.details.fields)
  expect(JSON.stringify(foreign.body)).not.toContain(a.agentId)
  const own = await b('POST', '/api/outbound/jobs/preview', csv)
  expect([own.status, own.body.rowCount, own.body.errors]).toEqual([200, 1, []])
})

test("A's do-not-call list is not reachable with B's key, and B's list is its own", async () => {
  notFound(await b('GET', `/api/workspaces/${t.workspaceId}/do-not-call`))
  notFound(await b('POST', `/api/workspaces/${t.workspaceId}/do-not-call`, { body: { number: '+14155550188' } }))
  notFound(await b('DELETE', `/api/workspaces/${t.workspaceId}/do-not-call/%2B14155550199`))
  expect((await b('GET', `/api/workspaces/${bWorkspace}/do-not-call`)).body.numbers ?? []).toEqual([])
  const own = (await t.api('GET', `/api/workspaces/${t.workspaceId}/do-not-call`)).body
  expect(JSON.stringify(own)).toContain('+14155550199')
  expect(JSON.stringify(own)).not.toContain('+14155550188')
})

test("A's webhook deliveries are not listed or retried with B's key", async () => {
  const at = new Date().toISOString()
  const row = await t.appliance.database.db
    .insertInto('webhook_deliveries')
    .values({ id: 'msg_tenant', workspace_id: t.workspaceId, event_type: 'job.started', url: 'https://example.com/hook', status: 'failed', next_attempt_at: at, created_at: at } as never)
    .returning('id')
    .executeTakeFirstOrThrow()
  expect((await t.api('GET', '/api/webhook-deliveries')).body.deliveries.map((d: any) => d.id)).toContain(row.id)
  expect((await b('GET', '/api/webhook-deliveries')).body.deliveries).toEqual([])
  notFound(await b('POST', `/api/webhook-deliveries/${row.id}/retry`))
  expect((await t.appliance.database.db.selectFrom('webhook_deliveries').select('status').where('id', '=', row.id).executeTakeFirstOrThrow()).status).toBe('failed')
})
