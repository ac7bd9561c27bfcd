// Each campaign contact is called inside the calling window of its own time zone: its number's
// (libphonenumber's prefix data), every zone of a number that may be in several, or the zone the
// contact or the job gives. The appliance's campaign clock is set by the test: jobs are created and
// contacts claimed at fixed instants, never at today's date.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { claimNext as claimStep, type Claim } from '../../../src/features/campaigns/claims.ts'
import { INLINE_MAX_BYTES } from '../../../src/features/campaigns/upload/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'

let t: TestAppliance
let x: CallSetup
let clockMs = 0

beforeAll(async () => {
  t = await startTestAppliance({}, undefined, undefined, { campaignClock: () => clockMs })
  t.appliance.campaigns.stop() // the test takes the dispatcher's steps itself, at its own instants
  x = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound' })
})
afterAll(async () => {
  await t?.stop()
})

/** The number of the contact one claim step at `iso` takes; undefined when none may be called then. */
async function claimAt(jobId: string, iso: string): Promise<string | undefined> {
  const c = (await claimStep(t.appliance.database.db, jobId, { owner: 'node-a', leaseMs: 60_000, nowMs: Date.parse(iso), agentName: 'Reception', fromNumber: x.e164 })) as Claim | undefined
  return c?.contact.to_number
}

async function createJob(contacts: object[], settings: object = {}) {
  const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts, settings } })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body.job.id as string
}

async function contactsOf(jobId: string): Promise<Record<string, any>> {
  const r = await t.api('GET', `/api/outbound/jobs/${jobId}/contacts`)
  expect(r.status).toBe(200)
  return Object.fromEntries(r.body.contacts.map((c: any) => [c.to, c]))
}

const jobCount = async () => (await t.api('GET', '/api/outbound/jobs?limit=100')).body.jobs.length

describe("each contact's own calling window", () => {
  test('a job created at 22:20 UTC calls its San Francisco contact at once: it is 14:20 there, inside 08:00-21:00', async () => {
    clockMs = Date.parse('2026-12-01T22:20:00Z')
    const id = await createJob([{ to: '+1 415 555 0100' }])
    expect((await contactsOf(id))['+14155550100']).toMatchObject({
      timezone: 'America/Los_Angeles',
      timezones: ['America/Los_Angeles'],
      timezoneSource: 'number',
      nextAttemptAt: '2026-12-01T22:20:00.000Z',
      nextAttemptLocal: '2026-12-01T14:20:00.000-08:00',
    })
    expect(await claimAt(id, '2026-12-01T22:20:00Z')).toBe('+14155550100')
  })

  test('New York, San Francisco, Honolulu and London contacts each wait for 08:00 in their own zone', async () => {
    clockMs = Date.parse('2026-12-02T07:30:00Z') // a Wednesday: 02:30 in New York, 07:30 in London
    const id = await createJob([{ to: '+12125550110' }, { to: '+14155550110' }, { to: '+18085550110' }, { to: '+442079460110' }], { maxConcurrent: 4 })
    const shown = await contactsOf(id)
    const row = (c: any) => [c.timezone, c.timezoneSource, c.nextAttemptAt, c.nextAttemptLocal]
    expect(Object.values(shown).map(row)).toEqual([
      ['America/New_York', 'number', '2026-12-02T13:00:00.000Z', '2026-12-02T08:00:00.000-05:00'],
      ['America/Los_Angeles', 'number', '2026-12-02T16:00:00.000Z', '2026-12-02T08:00:00.000-08:00'],
      ['Pacific/Honolulu', 'number', '2026-12-02T18:00:00.000Z', '2026-12-02T08:00:00.000-10:00'],
      ['Europe/London', 'number', '2026-12-02T08:00:00.000Z', '2026-12-02T08:00:00.000+00:00'],
    ])
    expect(await claimAt(id, '2026-12-02T07:59:59Z')).toBeUndefined()
    expect(await claimAt(id, '2026-12-02T08:00:00Z')).toBe('+442079460110')
    expect(await claimAt(id, '2026-12-02T12:59:59Z')).toBeUndefined()
    expect(await claimAt(id, '2026-12-02T13:00:00Z')).toBe('+12125550110')
    expect(await claimAt(id, '2026-12-02T15:59:59Z')).toBeUndefined()
    expect(await claimAt(id, '2026-12-02T16:00:00Z')).toBe('+14155550110')
    expect(await claimAt(id, '2026-12-02T17:59:59Z')).toBeUndefined()
    expect(await claimAt(id, '2026-12-02T18:00:00Z')).toBe('+18085550110')
  })

  test('a number whose zone is ambiguous is called only while the window is open in every zone it may be in', async () => {
    clockMs = Date.parse('2026-12-01T12:20:00Z')
    // +1 800 may be anywhere +1 reaches (Pago Pago to Guam); +1 605, South Dakota, is Mountain or Central
    const id = await createJob([{ to: '+18005550100' }, { to: '+16055550100' }], { maxConcurrent: 2 })
    const shown = await contactsOf(id)
    expect(shown['+18005550100']).toMatchObject({ timezone: null, timezoneSource: 'number', nextAttemptAt: '2026-12-01T22:00:00.000Z', nextAttemptLocal: null })
    expect(shown['+18005550100'].timezones).toHaveLength(42)
    expect(shown['+18005550100'].timezones).toEqual(expect.arrayContaining(['America/New_York', 'Pacific/Honolulu', 'Pacific/Guam', 'Pacific/Pago_Pago']))
    // 08:00 in Denver; 21:00 in Chicago ends it
    expect(shown['+16055550100']).toMatchObject({ timezone: null, timezones: ['America/Denver', 'America/North_Dakota/Center'], nextAttemptAt: '2026-12-01T15:00:00.000Z', nextAttemptLocal: null })
    expect(await claimAt(id, '2026-12-01T14:59:59Z')).toBeUndefined() // 08:59 in Chicago, 07:59 in Denver
    expect(await claimAt(id, '2026-12-01T15:00:00Z')).toBe('+16055550100')
    expect(await claimAt(id, '2026-12-01T21:59:59Z')).toBeUndefined() // 07:59 in Guam
    expect(await claimAt(id, '2026-12-01T22:00:00Z')).toBe('+18005550100')
  })

  test("a contact's own timezone decides; the job's decides for a number of several zones, never against a number's own", async () => {
    clockMs = Date.parse('2026-12-01T12:20:00Z')
    const office = { start: '09:00', end: '17:00' }
    const id = await createJob(
      [{ to: '+18005550101' }, { to: '+18005550102', timezone: 'america/chicago' }, { to: '+14155550103' }, { to: '+12125550104', timezone: 'Pacific/Honolulu' }],
      { callingWindow: office, scheduling: { timezone: 'America/Denver' } },
    )
    const shown = await contactsOf(id)
    const row = (to: string) => [shown[to].timezone, shown[to].timezoneSource, shown[to].nextAttemptAt]
    expect(row('+18005550101')).toEqual(['America/Denver', 'job', '2026-12-01T16:00:00.000Z'])
    expect(row('+18005550102')).toEqual(['America/Chicago', 'contact', '2026-12-01T15:00:00.000Z'])
    expect(row('+14155550103')).toEqual(['America/Los_Angeles', 'number', '2026-12-01T17:00:00.000Z'])
    expect(row('+12125550104')).toEqual(['Pacific/Honolulu', 'contact', '2026-12-01T19:00:00.000Z'])
    expect(await claimAt(id, '2026-12-01T15:00:00Z')).toBe('+18005550102')
  })
})

describe('contacts that could never be called are refused at creation', () => {
  test('a window never open in all of a number\'s zones, or a number of no known zone, is a 422 naming the contact and the fix; nothing is created', async () => {
    clockMs = Date.parse('2026-12-01T12:20:00Z')
    const before = await jobCount()
    const office = { start: '09:00', end: '17:00' }
    const json = await t.api('POST', '/api/outbound/jobs', {
      body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: [{ to: '+14155550120' }, { to: '+18005550120' }, { to: '+870772001799' }], settings: { callingWindow: office } },
    })
    expect(json.status).toBe(422)
    expect(json.body.error.details.fields).toEqual([
      {
        path: 'contacts[1].to',
        message:
          '+18005550120 may be in any of 42 time zones (America/Adak, America/Anchorage ... Pacific/Saipan); 09:00-17:00 is never open in all of them at once: give the contact a timezone (contacts[1].timezone) or the job settings.scheduling.timezone',
      },
      { path: 'contacts[2].to', message: 'no time zone is known for +870772001799: give the contact a timezone (contacts[2].timezone) or the job settings.scheduling.timezone' },
    ])
    // the same contacts with the fixes the message names are accepted
    const fixed = await t.api('POST', '/api/outbound/jobs', {
      body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: [{ to: '+14155550120' }, { to: '+18005550120', timezone: 'America/New_York' }, { to: '+870772001799' }], settings: { callingWindow: office, scheduling: { timezone: 'Europe/London' } } },
    })
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200)
    expect(await jobCount()).toBe(before + 1)
  })

  test('in CSV the refusal names the line, also when the worker thread read the file', async () => {
    clockMs = Date.parse('2026-12-01T12:20:00Z')
    const rows = Array.from({ length: 1500 }, (_, i) => `+1415556${String(i).padStart(4, '0')},Customer number ${i}`)
    rows[1200] = '+18005550130,Toll free'
    const csv = `to,name\n${rows.join('\n')}\n`
    expect(csv.length).toBeGreaterThan(INLINE_MAX_BYTES)
    const q = new URLSearchParams({ agentId: x.agentId, phoneNumberId: x.numberId, settings: JSON.stringify({ callingWindow: { start: '09:00', end: '17:00' } }) })
    const r = await t.api('POST', `/api/outbound/jobs?${q}`, { body: csv, headers: { 'content-type': 'text/csv' } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields).toEqual([{ path: 'contactsCsv[line 1202].to', message: expect.stringMatching(/^line 1202: \+18005550130 may be in any of 42 time zones .*give the contact a timezone \(a timezone column\)/) }])
  })

  test('a contact accepted before it became uncallable (a job from before zones existed) shows no next attempt and is looked at again a day later', async () => {
    clockMs = Date.parse('2026-12-01T12:20:00Z')
    const id = await createJob([{ to: '+870772001799' }], { scheduling: { timezone: 'Europe/London' } })
    // as such a job is stored: no zone for a number of none
    const db = t.appliance.database.db
    const job = await db.selectFrom('outbound_jobs').select('settings').where('id', '=', id).executeTakeFirstOrThrow()
    const { scheduling: _, ...settings } = JSON.parse(job.settings)
    await db.updateTable('outbound_jobs').set({ settings: JSON.stringify(settings) }).where('id', '=', id).execute()
    expect((await contactsOf(id))['+870772001799']).toMatchObject({ status: 'pending', timezones: [], nextAttemptAt: null })
    expect(await claimAt(id, '2026-12-01T12:20:00Z')).toBeUndefined()
    const row = await db.selectFrom('outbound_contacts').select(['status', 'next_attempt_ms']).where('job_id', '=', id).executeTakeFirstOrThrow()
    expect(row).toEqual({ status: 'pending', next_attempt_ms: Date.parse('2026-12-02T12:20:00Z') })
  })
})

describe("a contact's own zone as given", () => {
  test('a timezone column (suggested for a "Time zone" header) is the zone, not a variable; the preview shows it as the job stores it', async () => {
    clockMs = Date.parse('2026-12-01T12:20:00Z')
    const csv = 'Phone,Time zone,name\n+18005550140,america/chicago,Ann\n+18005550141,,Bob\n'
    const first = await t.api('POST', '/api/outbound/jobs/preview', { body: csv, headers: { 'content-type': 'text/csv' } })
    expect(first.body.suggestedColumns).toEqual(['to', 'timezone', 'name'])
    const columns = JSON.stringify(first.body.suggestedColumns)
    const preview = await t.api('POST', `/api/outbound/jobs/preview?${new URLSearchParams({ columns })}`, { body: csv, headers: { 'content-type': 'text/csv' } })
    expect(preview.body.errors).toEqual([])
    expect(preview.body.rows.map((r: any) => [r.to, r.timezone, r.dynamicVariables])).toEqual([
      ['+18005550140', 'America/Chicago', { name: 'Ann' }],
      ['+18005550141', null, { name: 'Bob' }],
    ])
    const q = new URLSearchParams({ agentId: x.agentId, phoneNumberId: x.numberId, columns })
    const job = await t.api('POST', `/api/outbound/jobs?${q}`, { body: csv, headers: { 'content-type': 'text/csv' } })
    expect(job.status, JSON.stringify(job.body)).toBe(200)
    const shown = await contactsOf(job.body.job.id)
    expect(shown['+18005550140']).toMatchObject({ timezone: 'America/Chicago', timezoneSource: 'contact', dynamicVariables: { name: 'Ann' }, nextAttemptAt: '2026-12-01T14:00:00.000Z' })
    expect(shown['+18005550141']).toMatchObject({ timezone: null, timezoneSource: 'number' })
  })

  test('an unknown zone is refused at its field, in JSON and in CSV (line and column), before anything is created', async () => {
    const before = await jobCount()
    const json = await t.api('POST', '/api/outbound/jobs', { body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: [{ to: '+14155550150', timezone: 'Eastern' }] } })
    expect(json.status).toBe(422)
    expect(json.body.error.details.fields).toEqual([{ path: 'contacts[0].timezone', message: "unknown IANA time zone 'Eastern': write it as America/New_York, Europe/London, ..." }])
    const q = new URLSearchParams({ agentId: x.agentId, phoneNumberId: x.numberId })
    const csv = await t.api('POST', `/api/outbound/jobs?${q}`, { body: 'to,timezone\n+14155550151,America/Chicago\n+14155550152,Mars/Olympus\n', headers: { 'content-type': 'text/csv' } })
    expect(csv.status).toBe(422)
    expect(csv.body.error.details.fields).toEqual([{ path: 'contactsCsv[line 3].timezone', message: "line 3, column 2 (timezone): unknown IANA time zone 'Mars/Olympus': write it as America/New_York, Europe/London, ..." }])
    expect(await jobCount()).toBe(before)
  })
})
