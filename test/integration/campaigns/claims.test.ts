// The dispatcher's durable steps on the appliance's real SQLite file, with `now` chosen by the
// test: calling windows per contact zone, the lease and the attempt written with the claim,
// maxConcurrent, idempotent finishing, and counters equal to counts over the contacts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { claimNext as claimStep, finishAttempt, type Claim, type ClaimContext } from '../../../src/features/campaigns/claims.ts'
import { RecordedEvents } from '../../../src/features/campaigns/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'

let t: TestAppliance
let x: CallSetup
/** The appliance's campaign clock: jobs are created at this instant, never at today's date. */
let clockMs = Date.parse('2026-11-30T08:00:00Z')

beforeAll(async () => {
  t = await startTestAppliance({}, undefined, undefined, { campaignClock: () => clockMs })
  t.appliance.campaigns.stop() // the test takes the dispatcher's steps itself
  x = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound' })
})
afterAll(async () => {
  await t?.stop()
})

/** One claim step; never 'again' here (fewer skipped contacts than one step looks at). */
const claimNext = async (db: Parameters<typeof claimStep>[0], jobId: string, c: ClaimContext) => (await claimStep(db, jobId, c)) as Claim | undefined

const ctx = (nowMs: number) => ({ owner: 'node-a', leaseMs: 60_000, nowMs, agentName: 'Reception', fromNumber: x.e164 })

/** The job's counters next to the same figures counted over its contacts. */
function countersAgree(jobId: string) {
  const db = t.appliance.database.sqlite
  const job = db.query('select pending, active, answered, no_answer, busy, voicemail, failed, suppressed, cancelled from outbound_jobs where id = ?').get(jobId) as Record<string, number>
  const rows = db.query("select case when status in ('pending','dialing','suppressed','cancelled') then status else outcome end k, count(*) n from outbound_contacts where job_id = ? group by k").all(jobId) as { k: string; n: number }[]
  const counted: Record<string, number> = { pending: 0, active: 0, answered: 0, no_answer: 0, busy: 0, voicemail: 0, failed: 0, suppressed: 0, cancelled: 0 }
  for (const r of rows) counted[r.k === 'dialing' ? 'active' : r.k] = r.n
  expect(job).toEqual(counted)
}

async function createJob(contacts: string[], settings: object) {
  const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: contacts.map((to) => ({ to })), settings } })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body.job.id as string
}

describe('claiming contacts', () => {
  test("a contact outside its own calling window waits until the window opens in its zone", async () => {
    // London and Tokyo numbers; 09:00-17:00 on weekdays, each in the number's own zone
    clockMs = Date.parse('2026-11-30T08:00:00Z') // a Monday, before the window opens in London
    const id = await createJob(['+442071838750', '+81312345678'], { maxConcurrent: 2, callingWindow: { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] } })
    const monday10London = Date.parse('2026-11-30T10:00:00Z') // 19:00 in Tokyo
    const first = await claimNext(t.appliance.database.db, id, ctx(monday10London))
    expect(first?.contact.to_number).toBe('+442071838750')
    expect(await claimNext(t.appliance.database.db, id, ctx(monday10London))).toBeUndefined()
    const tokyo = (await t.api('GET', `/api/outbound/jobs/${id}/contacts?status=pending`)).body.contacts[0]
    expect(tokyo).toMatchObject({ to: '+81312345678', attempts: 0, nextAttemptAt: '2026-12-01T00:00:00.000Z' }) // Tuesday 09:00 in Tokyo
    expect(await claimNext(t.appliance.database.db, id, ctx(Date.parse('2026-11-30T23:59:59Z')))).toBeUndefined()
    const second = await claimNext(t.appliance.database.db, id, ctx(Date.parse('2026-12-01T00:00:00Z')))
    expect(second?.contact.to_number).toBe('+81312345678')
    countersAgree(id)
  })

  test('a claim writes the lease and the attempt (the call row) together; maxConcurrent holds; finishing twice changes nothing', async () => {
    const now = (clockMs = Date.parse('2026-12-02T15:00:00Z'))
    const id = await createJob(['+14155550150', '+14155550151'], { maxConcurrent: 1, retryAttempts: 1, retryDelayMs: 5000, callingWindow: { start: '00:00', end: '24:00' } })
    const claim = (await claimNext(t.appliance.database.db, id, ctx(now)))!
    expect(claim.contact).toMatchObject({ status: 'dialing', attempts: 1, lease_owner: 'node-a', lease_expires_ms: now + 60_000, call_id: claim.callId })
    const call = t.appliance.database.sqlite.query('select status, outbound_job_id, outbound_contact_id, to_number from calls where id = ?').get(claim.callId)
    expect(call).toEqual({ status: 'queued', outbound_job_id: id, outbound_contact_id: claim.contact.id, to_number: '+14155550150' })
    countersAgree(id)
    expect(await claimNext(t.appliance.database.db, id, ctx(now))).toBeUndefined() // maxConcurrent 1

    // the call rang out: retried after retryDelayMs, under the job's rules
    t.appliance.database.sqlite.query("update calls set status = 'ended', outcome = 'no_answer' where id = ?").run(claim.callId)
    const events = new RecordedEvents()
    expect(await finishAttempt(t.appliance.database.db, events, claim.contact.id, claim.callId, now)).toBe(true)
    expect(await finishAttempt(t.appliance.database.db, events, claim.contact.id, claim.callId, now)).toBe(false)
    expect(events.events.map((e) => e.type)).toEqual(['call.completed'])
    expect(events.events[0]).toMatchObject({ contact: { to: '+14155550150', status: 'pending', attempts: 1, lastOutcome: 'no_answer' } })
    countersAgree(id)
    const next = (await claimNext(t.appliance.database.db, id, ctx(now)))!
    expect(next.contact.to_number).toBe('+14155550151') // the retry waits 5 s
    countersAgree(id)
  })

  test('many contacts outside their window do not hide one inside it: a step that only skipped says again', async () => {
    clockMs = Date.parse('2026-11-30T09:30:00Z')
    const tokyo = Array.from({ length: 149 }, (_, i) => `+8131234${String(5000 + i)}`)
    const id = await createJob([...tokyo, '+442071838751'], { callingWindow: { start: '09:00', end: '17:00' } })
    const monday10London = Date.parse('2026-11-30T10:00:00Z')
    expect(await claimStep(t.appliance.database.db, id, ctx(monday10London))).toBe('again')
    const claim = await claimNext(t.appliance.database.db, id, ctx(monday10London))
    expect(claim?.contact.to_number).toBe('+442071838751')
    countersAgree(id)
  })

  test('an attempt ending after cancel is not retried, and the cancelled job then gets its completedAt', async () => {
    const now = (clockMs = Date.parse('2026-12-03T15:00:00Z'))
    const id = await createJob(['+14155550155', '+14155550156'], { retryAttempts: 3, retryDelayMs: 0, callingWindow: { start: '00:00', end: '24:00' } })
    const claim = (await claimNext(t.appliance.database.db, id, ctx(now)))!
    const cancelled = (await t.api('POST', `/api/outbound/jobs/${id}/cancel`)).body.job
    expect(cancelled).toMatchObject({ status: 'cancelled', activeContacts: 1, cancelledContacts: 1 })
    expect(cancelled.completedAt).toBeUndefined()
    t.appliance.database.sqlite.query("update calls set status = 'ended', outcome = 'busy' where id = ?").run(claim.callId)
    const events = new RecordedEvents()
    await finishAttempt(t.appliance.database.db, events, claim.contact.id, claim.callId, now)
    const job = (await t.api('GET', `/api/outbound/jobs/${id}`)).body.job
    expect(job).toMatchObject({ status: 'cancelled', activeContacts: 0, pendingContacts: 0, failedContacts: 1, cancelledContacts: 1, progress: { busy: 1 } })
    expect(job.completedAt).toBeString()
    expect(events.events.map((e) => e.type)).toEqual(['call.completed', 'job.completed'])
    countersAgree(id)
  })
})

