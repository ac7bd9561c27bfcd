// Campaign contacts as people write them, through the API: separators accepted, national formats
// with a job-level defaultCountry, and 422s that name the CSV line and column. The large CSV goes
// through the upload's worker thread (over INLINE_MAX_BYTES), the small ones stay on the event loop.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { INLINE_MAX_BYTES } from '../../../src/features/campaigns/upload/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, type CallSetup } from '../../helpers/calls.ts'

let t: TestAppliance
let target: CallSetup
beforeAll(async () => {
  t = await startTestAppliance()
  // nothing listens on the trunk, and every job starts in 2099: no call is placed
  target = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound' })
})
afterAll(async () => {
  await t?.stop()
})

const FUTURE = { scheduling: { startAt: '2099-01-01T09:00:00', timezone: 'UTC' } }
const numbersOf = async (jobId: string) => (await t.api('GET', `/api/outbound/jobs/${jobId}/contacts?limit=500`)).body.contacts.map((c: { to: string }) => c.to)
const csvJob = (csv: string, query: Record<string, string> = {}) => {
  const q = new URLSearchParams({ agentId: target.agentId, phoneNumberId: target.numberId, settings: JSON.stringify(FUTURE), ...query })
  return t.api('POST', `/api/outbound/jobs?${q}`, { body: csv, headers: { 'content-type': 'text/csv' } })
}

describe('campaign contact numbers', () => {
  test('"+1 415 555 0203" no longer rejects the job: it is stored as +14155550203', async () => {
    const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: target.agentId, phoneNumberId: target.numberId, contacts: [{ to: '+1 415 555 0203' }, { to: '+1 (415) 555-0204' }, { to: '+1.415.555.0205' }], settings: FUTURE } })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(await numbersOf(r.body.job.id)).toEqual(['+14155550203', '+14155550204', '+14155550205'])
  })

  test('national formats take the job\'s defaultCountry (JSON field, or query parameter with a CSV body)', async () => {
    const json = await t.api('POST', '/api/outbound/jobs', { body: { agentId: target.agentId, phoneNumberId: target.numberId, defaultCountry: 'DE', contacts: [{ to: '030 1234567' }, { to: '+1 415 555 0206' }], settings: FUTURE } })
    expect(json.status, JSON.stringify(json.body)).toBe(200)
    expect(await numbersOf(json.body.job.id)).toEqual(['+49301234567', '+14155550206'])
    const csv = await csvJob('to,name\n(415) 555-0207,Ann\n415.555.0208,Bob\n', { defaultCountry: 'US' })
    expect(csv.status, JSON.stringify(csv.body)).toBe(200)
    expect(await numbersOf(csv.body.job.id)).toEqual(['+14155550207', '+14155550208'])
  })

  test('a defaultCountry that is not ISO 3166 alpha-2 is 422 naming defaultCountry', async () => {
    for (const defaultCountry of ['UK', 'USA']) {
      const r = await t.api('POST', '/api/outbound/jobs', { body: { agentId: target.agentId, phoneNumberId: target.numberId, defaultCountry, contacts: [{ to: '+14155550209' }] } })
      expect(r.status).toBe(422)
      expect(r.body.error.details.fields).toEqual([{ path: 'defaultCountry', message: expect.stringContaining('ISO 3166 alpha-2') }])
    }
    const csv = await csvJob('to\n+14155550209\n', { defaultCountry: 'Narnia' })
    expect(csv.status).toBe(422)
    expect(csv.body.error.details.fields[0].path).toBe('defaultCountry')
  })

  test('errors in a CSV name the line (the header is line 1) and the column, also when the worker thread reads it', async () => {
    const small = await csvJob('name,to\nAnn,+1 415 555 0210\n\nBob,415 555 0211\n')
    expect(small.status).toBe(422)
    expect(small.body.error.details.fields).toEqual([
      { path: 'contactsCsv[line 4].to', message: 'line 4, column 2 (to): has no +country code: write it as +14155550123, or give the job a defaultCountry for national numbers' },
    ])
    const rows = Array.from({ length: 1500 }, (_, i) => `Contact number ${i},(415) 555-${String(i).padStart(4, '0')}`)
    rows[1200] = 'Bad row,(415) 555-12x0'
    const big = `name,to\n${rows.join('\n')}\n`
    expect(big.length).toBeGreaterThan(INLINE_MAX_BYTES)
    const r = await csvJob(big, { defaultCountry: 'US' })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields).toEqual([{ path: 'contactsCsv[line 1202].to', message: expect.stringMatching(/^line 1202, column 2 \(to\): /) }])
    rows[1200] = 'Fixed row,(415) 555-9999'
    const fixed = await csvJob(`name,to\n${rows.join('\n')}\n`, { defaultCountry: 'US' })
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200)
    expect(fixed.body.job.totalContacts).toBe(1500)
  })
})
