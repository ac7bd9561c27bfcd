// The outbound-jobs and do-not-call API without placing calls: validation naming fields,
// duplicates and missing variables reported, CSV, scheduling, listing, actions and suppression.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'
import { waitForJob } from '../../helpers/jobs.ts'
import { RecordedEvents } from '../../../src/features/campaigns/index.ts'

let t: TestAppliance
let target: CallSetup
const events = new RecordedEvents()

beforeAll(async () => {
  t = await startTestAppliance({}, undefined, undefined, { campaignEvents: events })
  // nothing listens on the trunk: these tests never let a call be placed
  target = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound', agent: { promptPublished: 'Remind {{name}} of the visit on {{date}}.' } })
})
afterAll(async () => {
  await t?.stop()
})

const FUTURE = { scheduling: { startAt: '2099-01-01T09:00:00', timezone: 'Europe/Paris' } }
const jobCount = async () => (await t.api('GET', '/api/outbound/jobs?limit=100')).body.jobs.length

describe('POST /api/outbound/jobs', () => {
  test('bad input is 422 naming every field path, and creates nothing; an unknown number is refused before the rest', async () => {
    const before = await jobCount()
    const body = {
      agentId: target.agentId,
      phoneNumberId: 'pn_nope',
      contacts: [{ to: '+14155550100' }, { to: '555-0101' }, { to: '+14155550102', dynamicVariables: { 'bad key': 'x' } }],
      settings: { scheduling: { timezone: 'Mars/Olympus', startAt: 'soon' }, callingWindow: { start: '20:00', end: '09:00' } },
    }
    const unknown = await t.api('POST', '/api/outbound/jobs', { body })
    expect(unknown.status).toBe(422)
    expect(unknown.body.error.details.fields).toEqual([{ path: 'phoneNumberId', message: 'no such phone number in this workspace' }])
    const r = await t.api('POST', '/api/outbound/jobs', { body: { ...body, phoneNumberId: target.numberId } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields.map((f: any) => f.path).sort()).toEqual([
      'contacts[1].to', 'contacts[2].dynamicVariables.bad key', 'settings.callingWindow.end', 'settings.scheduling.startAt', 'settings.scheduling.timezone',
    ])
    const limits = await t.api('POST', '/api/outbound/jobs', { body: { agentId: target.agentId, phoneNumberId: target.numberId, contacts: [{ to: '+14155550100' }], settings: { maxConcurrent: 11, retryAttempts: 4 } } })
    expect(limits.status).toBe(422)
    expect(limits.body.error.details.fields.map((f: any) => f.path).sort()).toEqual(['settings.maxConcurrent', 'settings.retryAttempts'])
    expect(await jobCount()).toBe(before)
  })

  test('an inbound agent cannot run a campaign', async () => {
    const inbound = await setupCallTarget(t, { direction: 'inbound' })
    const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: inbound.agentId, phoneNumberId: target.numberId, contacts: [{ to: '+14155550100' }] } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields).toEqual([{ path: 'agentId', message: expect.stringContaining('inbound agent') }])
  })

  test('a future startAt is scheduled with zero counters; duplicates are merged and missing variables reported', async () => {
    const r = await t.api('POST', '/api/outbound/jobs', {
      body: {
        agentId: target.agentId,
        phoneNumberId: target.numberId,
        name: 'Reminders',
        contacts: [
          { to: '+14155550100', dynamicVariables: { name: 'Ann', date: 'Monday' } },
          { to: '+14155550101', dynamicVariables: { name: 'Bob' } },
          { to: '+14155550100', dynamicVariables: { name: 'Ann again' } },
        ],
        settings: { ...FUTURE, maxConcurrent: 2 },
      },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.job).toMatchObject({ name: 'Reminders', status: 'scheduled', totalContacts: 2, completedContacts: 0, failedContacts: 0, agentId: target.agentId, phoneNumberId: target.numberId })
    expect(r.body.job.settings).toMatchObject({ maxConcurrent: 2, retryAttempts: 0, scheduling: FUTURE.scheduling })
    expect(r.body.warnings).toEqual([
      { path: 'contacts', message: '1 duplicate number(s) merged' },
      { path: 'contacts[1].dynamicVariables', message: expect.stringContaining('missing date') },
      { path: 'contacts[2].to', message: expect.stringContaining('duplicate of contacts[0]') },
    ])
    const detail = (await t.api('GET', `/api/outbound/jobs/${r.body.job.id}`)).body.job
    expect(detail).toMatchObject({ agentName: 'Reception', phoneNumber: target.e164, pendingContacts: 2, activeContacts: 0, startedAt: null, progress: { answered: 0, noAnswer: 0, busy: 0, voicemail: 0, failed: 0 } })
    expect(detail.completedAt).toBeUndefined()
    const contacts = (await t.api('GET', `/api/outbound/jobs/${r.body.job.id}/contacts`)).body.contacts
    // the job starts at 09:00 in Paris, midnight in San Francisco: its +1 415 contacts wait for 08:00 there
    const waiting = { status: 'pending', attempts: 0, lastOutcome: null, callIds: [], nextAttemptAt: '2099-01-01T16:00:00.000Z', nextAttemptLocal: '2099-01-01T08:00:00.000-08:00' }
    const zone = { timezone: 'America/Los_Angeles', timezones: ['America/Los_Angeles'], timezoneSource: 'number' }
    expect(contacts).toEqual([
      { id: expect.any(String), to: '+14155550100', dynamicVariables: { name: 'Ann', date: 'Monday' }, ...waiting, ...zone },
      { id: expect.any(String), to: '+14155550101', dynamicVariables: { name: 'Bob' }, ...waiting, ...zone },
    ])
  })

  test('contacts as CSV: a contactsCsv field, or a text/csv body with the other fields in the query', async () => {
    const csv = 'to,name,date\n+14155550110,"Smith, Ann",Monday\r\n+14155550111,"Bob ""B""",Tuesday\n'
    const a = await t.api('POST', '/api/outbound/jobs', { body: { agentId: target.agentId, phoneNumberId: target.numberId, contactsCsv: csv, settings: FUTURE } })
    expect(a.status, JSON.stringify(a.body)).toBe(200)
    const q = new URLSearchParams({ agentId: target.agentId, phoneNumberId: target.numberId, name: 'From CSV', settings: JSON.stringify(FUTURE) })
    const b = await t.api('POST', `/api/outbound/jobs?${q}`, { body: csv, headers: { 'content-type': 'text/csv' } })
    expect(b.status, JSON.stringify(b.body)).toBe(200)
    expect(b.body.job).toMatchObject({ name: 'From CSV', totalContacts: 2, status: 'scheduled' })
    for (const id of [a.body.job.id, b.body.job.id]) {
      const contacts = (await t.api('GET', `/api/outbound/jobs/${id}/contacts`)).body.contacts
      expect(contacts.map((c: any) => [c.to, c.dynamicVariables])).toEqual([
        ['+14155550110', { name: 'Smith, Ann', date: 'Monday' }],
        ['+14155550111', { name: 'Bob "B"', date: 'Tuesday' }],
      ])
    }
    const bad = await t.api('POST', '/api/outbound/jobs', { body: { agentId: target.agentId, phoneNumberId: target.numberId, contactsCsv: 'phone,name\n+14155550110,Ann\n' } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details.fields[0]).toMatchObject({ path: 'contactsCsv', message: expect.stringContaining('`to` column') })
  })

  test('the list is newest first with agentName and startedAt, and pages', async () => {
    const first = await t.api('GET', '/api/outbound/jobs?limit=2')
    expect(first.status).toBe(200)
    expect(first.body.jobs).toHaveLength(2)
    expect(first.body.jobs[0]).toMatchObject({ agentName: 'Reception', startedAt: null })
    expect(first.body.jobs[0].createdAt >= first.body.jobs[1].createdAt).toBe(true)
    const next = await t.api('GET', `/api/outbound/jobs?limit=2&cursor=${first.body.nextCursor}`)
    expect(next.body.jobs[0].id).not.toBe(first.body.jobs[1].id)
  })
})

describe('job actions', () => {
  test('pause, resume and cancel follow the state machine; other moves are 409', async () => {
    const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: target.agentId, phoneNumberId: target.numberId, contacts: [{ to: '+14155550120' }, { to: '+14155550121' }], settings: FUTURE } })
    const id = r.body.job.id
    expect((await t.api('POST', `/api/outbound/jobs/${id}/resume`)).status).toBe(409)
    expect((await t.api('POST', `/api/outbound/jobs/${id}/pause`)).body.job.status).toBe('paused')
    expect((await t.api('POST', `/api/outbound/jobs/${id}/resume`)).body.job.status).toBe('scheduled')
    const cancelled = (await t.api('POST', `/api/outbound/jobs/${id}/cancel`)).body.job
    expect(cancelled).toMatchObject({ status: 'cancelled', pendingContacts: 0, cancelledContacts: 2, completedContacts: 0, failedContacts: 0 })
    expect(cancelled.completedAt).toBeString()
    const again = await t.api('POST', `/api/outbound/jobs/${id}/cancel`)
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('conflict')
    expect((await t.api('POST', '/api/outbound/jobs/job_nope/pause')).status).toBe(404)
  })
})

describe('a job whose agent is gone', () => {
  test('fails at its start: pending contacts fail, nothing is dialled, job.completed says failed', async () => {
    const agent = (await t.api('POST', '/api/agents', { body: { name: 'Temp', agentType: 'outbound' } })).body.agent.id
    const r = await t.api('POST', '/api/outbound/jobs', {
      body: { agentId: agent, phoneNumberId: target.numberId, contacts: [{ to: '+14155550170' }, { to: '+14155550171' }], settings: { scheduling: { startAt: new Date(Date.now() + 1000).toISOString() }, callingWindow: { start: '00:00', end: '24:00' } } },
    })
    expect(r.status).toBe(200)
    expect((await t.api('DELETE', `/api/agents/${agent}`)).status).toBe(200)
    const job = await waitForJob(t, r.body.job.id, (j) => j.status === 'failed', 4000)
    expect(job).toMatchObject({ pendingContacts: 0, failedContacts: 2, progress: { failed: 2 } })
    expect(job.completedAt).toBeString()
    expect(await t.appliance.database.db.selectFrom('calls').select('id').where('outbound_job_id', '=', r.body.job.id).execute()).toEqual([])
    expect(events.events.filter((e) => e.jobId === r.body.job.id).map((e) => e.type === 'job.completed' ? e.status : e.type)).toEqual(['job.started', 'failed'])
  })
})

describe('do-not-call', () => {
  const dnc = () => `/api/workspaces/${t.workspaceId}/do-not-call`

  test('add one, import many, list, look up and remove; bad numbers refuse the whole import', async () => {
    expect((await t.api('POST', dnc(), { body: { number: '+14155550130', reason: 'asked' } })).body).toEqual({ added: 1, alreadyListed: 0 })
    expect((await t.api('POST', dnc(), { body: { numbers: ['+14155550130', '+14155550131', '+14155550132'] } })).body).toEqual({ added: 2, alreadyListed: 1 })
    const bad = await t.api('POST', dnc(), { body: { numbers: ['+14155550133', 'nope'] } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details.fields).toEqual([{ path: 'numbers[1]', message: expect.any(String) }])
    expect((await t.api('GET', `${dnc()}?number=%2B14155550133`)).body.numbers).toEqual([])
    expect((await t.api('GET', `${dnc()}?number=%2B14155550130`)).body.numbers).toEqual([{ number: '+14155550130', reason: 'asked', source: 'api', createdAt: expect.any(String) }])
    expect((await t.api('DELETE', `${dnc()}/%2B14155550132`)).body).toEqual({ ok: true })
    expect((await t.api('DELETE', `${dnc()}/%2B14155550132`)).status).toBe(404)
    expect((await t.api('GET', dnc())).body.numbers.map((n: any) => n.number).sort()).toEqual(['+14155550130', '+14155550131'])
  })

  test('listed numbers are never dialled: counted as suppressed at creation and when listed later', async () => {
    await t.api('POST', dnc(), { body: { numbers: ['+14155550140'] } })
    const r = await t.api('POST', '/api/outbound/jobs', {
      body: { agentId: target.agentId, phoneNumberId: target.numberId, contacts: [{ to: '+14155550140' }, { to: '+14155550141' }], settings: { scheduling: { startAt: new Date(Date.now() + 1500).toISOString() }, callingWindow: { start: '00:00', end: '24:00' } } },
    })
    const id = r.body.job.id
    expect((await t.api('GET', `/api/outbound/jobs/${id}`)).body.job).toMatchObject({ status: 'scheduled', suppressedContacts: 1, pendingContacts: 1 })
    // listed after the job was created, before its start
    await t.api('POST', dnc(), { body: { number: '+14155550141' } })
    const job = await waitForJob(t, id, (j) => j.status === 'completed', 4000)
    expect(job).toMatchObject({ status: 'completed', suppressedContacts: 2, pendingContacts: 0, completedContacts: 0, failedContacts: 0 })
    expect(await t.appliance.database.db.selectFrom('calls').select('id').where('outbound_job_id', '=', id).execute()).toEqual([])
    expect(events.events.filter((e) => e.jobId === id).map((e) => e.type === 'job.completed' ? `${e.type} ${e.status}` : e.type)).toEqual(['job.started', 'job.completed completed'])
  })
})
