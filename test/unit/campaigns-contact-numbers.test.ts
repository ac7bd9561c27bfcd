// How a campaign's contact numbers are read: the separators people write, national formats with
// the job's defaultCountry, and errors that name the CSV line and column. Pure functions.
import { describe, expect, test } from 'bun:test'
import { contactsFromCsv, parseCsv } from '../../src/features/campaigns/csv.ts'
import { normalise } from '../../src/features/campaigns/upload/index.ts'
import { prepareUpload } from '../../src/features/campaigns/upload/prepare.ts'
import { contactE164, countryCode } from '../../src/features/numbers/e164.ts'

const bytes = (s: string) => new TextEncoder().encode(s)
const thrownFields = (fn: () => unknown) => {
  try {
    fn()
  } catch (err) {
    return (err as { details: { fields: { path: string; message: string }[] } }).details.fields
  }
  throw new Error('did not throw')
}

describe('contactE164', () => {
  test.each([
    ['+1 415 555 0203', undefined, '+14155550203'],
    ['+1 (415) 555-0203', undefined, '+14155550203'],
    ['+1.415.555.0203', undefined, '+14155550203'],
    ['  +14155550203 ', undefined, '+14155550203'],
    ['(415) 555-0203', 'US', '+14155550203'],
    ['415.555.0203', 'US', '+14155550203'],
    ['030 1234567', 'DE', '+49301234567'],
    ['0049 30 1234567', 'DE', '+49301234567'],
    ['+44 (0)20 7946 0958', 'DE', '+442079460958'],
  ] as const)('%p with defaultCountry %p is %p', (raw, country, e164) => {
    expect(contactE164(raw, country)).toEqual({ e164 })
  })

  test('national formats without a defaultCountry, letters, extensions and impossible numbers are refused with a reason', () => {
    expect(contactE164('(415) 555-0203')).toEqual({ error: expect.stringContaining('defaultCountry') })
    expect(contactE164('1-800-FLOWERS', 'US')).toEqual({ error: expect.stringContaining('only digits') })
    expect(contactE164('415 555 0203 ext 5', 'US')).toEqual({ error: expect.stringContaining('only digits') })
    expect(contactE164('+1 415 +555 0203')).toEqual({ error: expect.stringContaining('only digits') })
    expect(contactE164('+1 000')).toEqual({ error: 'is not a valid phone number' })
    expect(contactE164('12', 'DE')).toEqual({ error: expect.stringContaining('DE') })
    expect(contactE164('  ')).toEqual({ error: expect.stringContaining('empty') })
  })

  test('countryCode takes ISO 3166 alpha-2 codes with a numbering plan, in any case', () => {
    expect(countryCode('US')).toBe('US')
    expect(countryCode('de')).toBe('DE')
    for (const bad of ['UK', 'XX', 'USA', 'U', '', '1A']) expect(countryCode(bad)).toBeUndefined()
  })
})

describe('CSV lines', () => {
  test('each row knows the line it starts on: the header is line 1, quoted line breaks and blank lines count', () => {
    const lines: number[] = []
    parseCsv('to,note\r\n+14155550100,"two\nlines"\n\n+14155550101,x\r+14155550102,y', Infinity, lines)
    expect(lines).toEqual([1, 2, 5, 6])
    expect(contactsFromCsv('to\n\n+14155550100\n').map((c) => c.line)).toEqual([3])
  })

  test('a bad number names its line and column, not contacts[i]', () => {
    const csv = 'name,to\nAnn,+1 415 555 0203\n\nBob,"12 34\n56"\nCid,(415) 555-0205\nDan,+1 415 555 0206\n'
    const out = prepareUpload({ bytes: bytes(csv), csv: true, used: [] }).contacts
    expect(out.issues).toEqual([
      { path: 'contactsCsv[line 4].to', message: expect.stringMatching(/^line 4, column 2 \(to\): may hold only digits/) },
      { path: 'contactsCsv[line 6].to', message: expect.stringMatching(/^line 6, column 2 \(to\): has no \+country code/) },
    ])
    const withCountry = prepareUpload({ bytes: bytes(csv.replace('"12 34\n56"', '415-555-0204')), csv: true, used: [], defaultCountry: 'US' }).contacts
    expect(withCountry.issues).toEqual([])
    expect(withCountry.numbers.split('\n')).toEqual(['+14155550203', '+14155550204', '+14155550205', '+14155550206'])
  })

  test('a bad variable name in the header names line 1 and its column', () => {
    expect(thrownFields(() => prepareUpload({ bytes: bytes('to,first name\n+14155550100,Ann\n'), csv: true, used: [] }))).toEqual([
      { path: 'contactsCsv[line 1].first name', message: expect.stringContaining('line 1, column 2') },
    ])
  })

  test('a defaultCountry that is not an ISO 3166 alpha-2 code is refused before any number is read', () => {
    const body = (c: unknown) => bytes(JSON.stringify({ agentId: 'a', phoneNumberId: 'p', defaultCountry: c, contacts: [{ to: '415 555 0203' }] }))
    for (const bad of ['UK', 'USA', 'xx', 1]) expect(thrownFields(() => prepareUpload({ bytes: body(bad), csv: false, used: [] }))).toEqual([{ path: 'defaultCountry', message: expect.stringContaining('ISO 3166 alpha-2') }])
    expect(thrownFields(() => prepareUpload({ bytes: bytes('to\n+14155550100\n'), csv: true, used: [], defaultCountry: 'Narnia' }))[0]!.path).toBe('defaultCountry')
    const ok = prepareUpload({ bytes: body('us'), csv: false, used: [] })
    expect(ok.contacts.numbers).toBe('+14155550203')
  })
})

describe('normalise', () => {
  test('the issue\'s "+1 415 555 0203" is accepted and stored as E.164', () => {
    const out = normalise([{ to: '+1 415 555 0203' }], [])
    expect(out.issues).toEqual([])
    expect(out.numbers).toBe('+14155550203')
  })

  test('written forms of one number are one contact: merged, the warning names the first one\'s line', () => {
    const csv = 'to,name\n+1 415 555 0203,Ann\n(415) 555-0203,Bob\n'
    const out = prepareUpload({ bytes: bytes(csv), csv: true, used: [], defaultCountry: 'us' }).contacts
    expect(out.count).toBe(1)
    expect(out.warnings).toContainEqual({ path: 'contactsCsv[line 3].to', message: expect.stringContaining('duplicate of line 2') })
  })
})
