import { describe, expect, test } from 'bun:test'
import { attemptOutcome } from '../../src/features/campaigns/claims.ts'
import { contactsFromCsv, suggestColumns } from '../../src/features/campaigns/csv.ts'

describe("an attempt's outcome from its call row", () => {
  const row = (o: Record<string, unknown>) => ({ outcome: null, end_reason: null, answered_at: null, answered_by: null, ...o }) as any
  test.each([
    [{ answered_at: 'x', outcome: 'completed' }, 'answered'],
    [{ answered_at: 'x', answered_by: 'human' }, 'answered'],
    [{ answered_at: 'x', answered_by: 'unknown' }, 'answered'],
    [{ answered_at: 'x', answered_by: 'machine' }, 'voicemail'],
    [{ answered_at: 'x', outcome: 'failed', end_reason: 'appliance_restart' }, 'answered'], // cut by a crash after answer
    [{ outcome: 'busy' }, 'busy'],
    [{ outcome: 'declined' }, 'busy'],
    [{ outcome: 'no_answer' }, 'no_answer'],
    [{ outcome: 'cancelled' }, 'no_answer'], // our ring timeout
    [{ outcome: 'shutdown' }, 'no_answer'],
    [{ outcome: 'failed', end_reason: 'appliance_restart' }, 'no_answer'], // may have rung: the attempt counts
    [{ outcome: 'failed', end_reason: 'lease_expired' }, 'no_answer'],
    [{ outcome: 'failed', end_reason: 'failed (500)' }, 'failed'],
    [{ outcome: 'not_found' }, 'failed'],
  ])('%o is %s', (call, expected) => {
    expect(attemptOutcome(row(call))).toBe(expected as any)
  })
  test('a deleted call row counts as an unanswered attempt', () => {
    expect(attemptOutcome(undefined)).toBe('no_answer')
  })
})

describe('contacts from CSV', () => {
  test('quoted fields, doubled quotes, line breaks in quotes, CRLF, a BOM and empty cells', () => {
    const csv = '\ufeffname,to,note\r\n"Smith, Ann",+14155550100,"said ""hi""\nthen left"\r\nBob,+14155550101,\n'
    expect(contactsFromCsv(csv)).toEqual([
      { to: '+14155550100', dynamicVariables: { name: 'Smith, Ann', note: 'said "hi"\nthen left' }, line: 2 },
      { to: '+14155550101', dynamicVariables: { name: 'Bob' }, line: 4 },
    ])
  })
  test('a row with the wrong number of fields is refused with its line', () => {
    expect(() => contactsFromCsv('to,name\n+14155550100\n')).toThrow('contactsCsv[line 2]')
  })

  test('the suggested mapping names the phone-like column `to` and makes the others variable names', () => {
    expect(suggestColumns(['First Name', 'Phone', 'notes', '', '2nd try'])).toEqual(['First_Name', 'to', 'notes', '', '_2nd_try'])
    expect(suggestColumns(['mobile', 'to'])).toEqual(['mobile', 'to'])
  })

  test('columns rename each column; an empty name leaves the column out', () => {
    expect(contactsFromCsv('First Name,Phone,notes\nAda,+14155550101,x\n', ['first', 'to', ''])).toEqual([{ to: '+14155550101', dynamicVariables: { first: 'Ada' }, line: 2 }])
    expect(() => contactsFromCsv('a,b\n1,2\n', ['to', 'to'])).toThrow('only one column may be `to`')
  })

  test("a timezone column is the contact's own zone, not a variable; an empty cell gives none; a time-zone header is suggested as it", () => {
    expect(contactsFromCsv('to,timezone,name\n+14155550101,America/Chicago,Ada\n+14155550102,,Bob\n')).toEqual([
      { to: '+14155550101', dynamicVariables: { name: 'Ada' }, timezone: 'America/Chicago', line: 2 },
      { to: '+14155550102', dynamicVariables: { name: 'Bob' }, line: 3 },
    ])
    expect(suggestColumns(['Phone', 'Time Zone', 'name'])).toEqual(['to', 'timezone', 'name'])
    expect(suggestColumns(['tz', 'to', 'timezone'])).toEqual(['tz', 'to', 'timezone'])
    expect(() => contactsFromCsv('a,b,c\n1,2,3\n', ['to', 'timezone', 'timezone'])).toThrow('only one column may be `timezone`')
  })
})
