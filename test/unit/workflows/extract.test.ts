import { describe, expect, test } from 'bun:test'
import { extractDate, extractDigits, extractEmail, extractRegex, extractText, extractYesNo } from '../../../src/features/workflows/engine/extract.ts'

const table = <T>(name: string, fn: (input: string) => T, rows: [string, T][]) =>
  describe(name, () => {
    for (const [input, want] of rows) test(`${JSON.stringify(input)} -> ${JSON.stringify(want)}`, () => expect(fn(input)).toEqual(want))
  })

table('digits, typed or spoken', (s) => extractDigits(s, 1, 10), [
  ['4129', '4129'],
  ['my number is 41-29', '4129'],
  ['four one two nine', '4129'],
  ['double five three', '553'],
  ['I want to pay for it', undefined],
  ['twelve', undefined],
  ['12345678901', undefined],
])
table('yes or no', extractYesNo, [
  ['Yes please', 'yes'],
  ['yeah, of course', 'yes'],
  ['Nope.', 'no'],
  ["I don't think so", 'no'],
  ['1', 'yes'],
  ['2', 'no'],
  ['yes no', undefined],
  ['maybe', undefined],
])
table('dates, with today 2026-11-21 (a Saturday)', (s) => extractDate(s, '2026-11-21'), [
  ['2027-02-03', '2027-02-03'],
  ['2027-02-30', undefined],
  ['today', '2026-11-21'],
  ['tomorrow please', '2026-11-22'],
  ['the day after tomorrow', '2026-11-23'],
  ['on Monday', '2026-11-23'],
  ['December 5th', '2026-12-05'],
  ['the 3rd of March', '2027-03-03'],
  ['I need 2 seats on Jan 15 2028', '2028-01-15'],
  ['the twenty-first of november', '2026-11-21'],
  ['03/05', undefined],
  ['sometime soon', undefined],
])
table('email, typed or spoken', extractEmail, [
  ['it is Jane.Doe@Example.com thanks', 'jane.doe@example.com'],
  ['jane dot doe at example dot co dot uk', 'jane.doe@example.co.uk'],
  ['no email', undefined],
])
table('regex keeps group 1 or the match', (s) => extractRegex(s, '(?:order\\s*)?([a-z]{2}\\d{4})'), [
  ['order AB1234 please', 'AB1234'],
  ['nothing here', undefined],
])
table('free text is the trimmed answer', extractText, [
  ['  a blue car  ', 'a blue car'],
  ['   ', undefined],
])
