// POST /api/outbound/jobs/preview: a contacts CSV read by the parser the upload uses, so what the
// console previews is what the job gets. Files where the console's own parser (removed) and the
// server's disagreed: a byte order mark, quoted fields, a quote inside an unquoted field.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type CallSetup, setupCallTarget } from '../../helpers/calls.ts'

const LIMIT = 64 * 1024
let t: TestAppliance
let target: CallSetup

beforeAll(async () => {
  t = await startTestAppliance({ OUTBOUND_JOB_MAX_BODY_BYTES: LIMIT })
  target = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:9', direction: 'outbound', agent: { promptPublished: 'Hello {{first}}, about {{date}}.' } })
})
afterAll(async () => {
  await t?.stop()
})

const FUTURE = JSON.stringify({ scheduling: { startAt: '2099-01-01T09:00:00', timezone: 'Europe/London' } })

function sendCsv(path: string, csv: string | Uint8Array, query: Record<string, string> = {}, contentType = 'text/csv') {
  const qs = new URLSearchParams(query).toString()
  return t.api('POST', `${path}${qs ? `?${qs}` : ''}`, { body: csv as string, headers: { 'content-type': contentType } })
}
const preview = (csv: string | Uint8Array, query: Record<string, string> = {}) => sendCsv('/api/outbound/jobs/preview', csv, query)
const upload = (csv: string, query: Record<string, string> = {}) =>
  sendCsv('/api/outbound/jobs', csv, { agentId: target.agentId, phoneNumberId: target.numberId, settings: FUTURE, ...query })

describe('contacts preview', () => {
  test('a byte order mark and quoted fields are read as the upload reads them, and the job gets what the preview showed', async () => {
    const csv = '\ufeff"to","first","note"\r\n+14155550101,"Doe, Jane","said ""hi""\nthen left"\r\n+1 (415) 555-0102,Bob,5" screen\r\n'
    const r = await preview(csv)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toEqual({
      header: ['to', 'first', 'note'],
      columns: ['to', 'first', 'note'],
      suggestedColumns: ['to', 'first', 'note'],
      rows: [
        { line: 2, cells: ['+14155550101', 'Doe, Jane', 'said "hi"\nthen left'], to: '+14155550101', dynamicVariables: { first: 'Doe, Jane', note: 'said "hi"\nthen left' }, timezone: null },
        { line: 4, cells: ['+1 (415) 555-0102', 'Bob', '5" screen'], to: '+14155550102', dynamicVariables: { first: 'Bob', note: '5" screen' }, timezone: null },
      ],
      rowCount: 2,
      errors: [],
      warnings: [],
    })
    const job = await upload(csv)
    expect(job.status, JSON.stringify(job.body)).toBe(200)
    const contacts = (await t.api('GET', `/api/outbound/jobs/${job.body.job.id}/contacts`)).body.contacts
    expect(contacts.map((c: any) => ({ to: c.to, dynamicVariables: c.dynamicVariables }))).toEqual(r.body.rows.map((row: any) => ({ to: row.to, dynamicVariables: row.dynamicVariables })))
  })

  test('columns map a header people wrote: the suggestion names the phone column "to"; the upload with the same columns stores the mapped variables', async () => {
    const csv = 'First Name,Phone,Notes\nAda,+14155550111,x\nGrace,+14155550112,y\n'
    const plain = await preview(csv)
    expect(plain.body.suggestedColumns).toEqual(['First_Name', 'to', 'Notes'])
    expect(plain.body.errors).toEqual([
      { path: 'contactsCsv[line 1].First Name', message: expect.stringContaining('line 1, column 1: variable names must look like {{placeholders}}') },
      { path: 'contactsCsv', message: 'line 1 (the header) has no `to` column' },
    ])
    expect(plain.body.rows.map((row: any) => row.to)).toEqual([null, null])

    const columns = JSON.stringify(['first', 'to', ''])
    const mapped = await preview(csv, { columns })
    expect(mapped.body.errors).toEqual([])
    expect(mapped.body.columns).toEqual(['first', 'to', ''])
    expect(mapped.body.rows.map((row: any) => [row.to, row.dynamicVariables])).toEqual([['+14155550111', { first: 'Ada' }], ['+14155550112', { first: 'Grace' }]])
    const job = await upload(csv, { columns })
    expect(job.status, JSON.stringify(job.body)).toBe(200)
    const contacts = (await t.api('GET', `/api/outbound/jobs/${job.body.job.id}/contacts`)).body.contacts
    expect(contacts.map((c: any) => c.dynamicVariables)).toEqual([{ first: 'Ada' }, { first: 'Grace' }])
  })

  test('a mapping of the wrong length or to a name no {{placeholder}} can use is an error of the file; columns that are not a JSON array are 422', async () => {
    const csv = 'First Name,Phone\nAda,+14155550111\n'
    expect((await preview(csv, { columns: JSON.stringify(['to']) })).body.errors).toEqual([{ path: 'columns', message: 'has 1 entries; the header (line 1) has 2 columns' }])
    expect((await preview(csv, { columns: JSON.stringify(['first name', 'to']) })).body.errors).toEqual([{ path: 'columns[0]', message: expect.stringContaining('variable names must look like {{placeholders}}') }])
    const bad = await preview(csv, { columns: '{"Phone":"to"}' })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details.fields).toEqual([expect.objectContaining({ path: 'columns' })])
  })

  test('each row problem names its line as the upload does, and the upload refuses the same file with the same paths', async () => {
    const csv = 'to,first\n+14155550121,Ann\nnot-a-number,Bob\n\n(415) 555-0123,Cid\n+14155550121,Dup\n'
    const r = await preview(csv, { agentId: target.agentId })
    expect(r.body.rowCount).toBe(4)
    expect(r.body.errors.map((e: any) => e.path)).toEqual(['contactsCsv[line 3].to', 'contactsCsv[line 5].to'])
    expect(r.body.rows.map((row: any) => [row.line, row.to])).toEqual([[2, '+14155550121'], [3, null], [5, null], [6, '+14155550121']])
    // the agent uses {{first}} and {{date}}: every kept row lacks date; line 6 is merged into line 2
    expect(r.body.warnings).toContainEqual({ path: 'contacts', message: '1 duplicate number(s) merged' })
    expect(r.body.warnings).toContainEqual({ path: 'contactsCsv[line 2]', message: expect.stringContaining('missing date') })
    const refused = await upload(csv)
    expect(refused.status).toBe(422)
    expect(refused.body.error.details.fields.map((f: any) => f.path)).toEqual(r.body.errors.map((e: any) => e.path))
    // with defaultCountry the national number reads, as it would in the upload
    expect((await preview(csv, { defaultCountry: 'US' })).body.rows[2].to).toBe('+14155550123')
  })

  test('limit bounds the rows shown, not the count; a file above 32 KiB is read in the worker thread with the same answer', async () => {
    const lines = Array.from({ length: 1200 }, (_, i) => `+1415556${String(i).padStart(4, '0')},"Customer, number ${i}"`)
    const csv = `to,name\n${lines.join('\n')}\n`
    expect(csv.length).toBeGreaterThan(32 * 1024)
    const r = await preview(csv, { limit: '3' })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.rowCount).toBe(1200)
    expect(r.body.rows.map((row: any) => row.dynamicVariables.name)).toEqual(['Customer, number 0', 'Customer, number 1', 'Customer, number 2'])
    expect(r.body.errors).toEqual([])
    expect((await preview(csv, { limit: '101' })).status).toBe(400)
  })

  test('a body over OUTBOUND_JOB_MAX_BODY_BYTES is 413 naming the cap; a JSON body is 415; a quote never closed is 422', async () => {
    const big = await preview(`to\n${'+14155550100\n'.repeat(Math.ceil(LIMIT / 13) + 10)}`)
    expect(big.status).toBe(413)
    expect(big.body.error).toMatchObject({ code: 'payload_too_large', details: { limitBytes: LIMIT } })
    const json = await sendCsv('/api/outbound/jobs/preview', JSON.stringify({ contacts: [] }), {}, 'application/json')
    expect(json.status).toBe(415)
    expect(json.body.error.code).toBe('unsupported_media_type')
    const open = await preview('to,note\n+14155550100,"never closed\n')
    expect(open.status).toBe(422)
    expect(open.body.error.details.fields[0].path).toBe('contactsCsv')
  })

  test('the OpenAPI document describes the route: a text/csv body, its permission, the preview and the shared error responses', async () => {
    const doc = (await t.api('GET', '/openapi/json')).body
    const op = doc.paths['/api/outbound/jobs/preview'].post
    expect(op['x-permission']).toBe('campaigns:write')
    expect(Object.keys(op.requestBody.content)).toEqual(['text/csv'])
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '413', '415', '422', '429']))
    expect(JSON.stringify(op.responses['200'])).toContain('suggestedColumns')
  })

  test('an inbound agent, or an agent that does not exist, is refused before the file is read', async () => {
    const inbound = await t.api('POST', '/api/agents', { body: { name: 'Inbound' } })
    for (const agentId of [inbound.body.agent.id, 'ag_missing']) {
      const r = await preview('to\n+14155550100\n', { agentId })
      expect(r.status).toBe(422)
      expect(r.body.error.details.fields).toEqual([expect.objectContaining({ path: 'agentId' })])
    }
  })
})
