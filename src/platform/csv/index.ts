// Writing CSV for spreadsheets (RFC 4180), the one writer every CSV the product produces goes
// through. Pure.
//
// A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return before one)
// as a formula: =HYPERLINK(...) leaks the sheet to a site, DDE formulas run programs. Text
// written by users, callers or agents therefore gets the OWASP "CSV injection" treatment: a
// leading ' makes the spreadsheet show it as text, and the cell is quoted. Every text cell is
// quoted, so a reader that splits on ; or tabs (some locales) still sees one cell.
//
// Numbers from our own numeric fields (a JavaScript number, such as a negative cost delta or a
// score) are written bare, -5 stays the number -5: they never hold text. A string "-5" is text
// and gets the quote like any other.

/** Characters that make a spreadsheet read a cell as a formula when they come first. */
const FORMULA_START = /^[=+\-@\t\r\n]/

/** A value as text that no spreadsheet runs: a leading ' before = + - @, tab, CR or LF. */
export function neutralised(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text
}

/** One CSV cell: numbers and booleans bare, null/undefined empty, text neutralised and quoted. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return String(value)
  return `"${neutralised(value).replace(/"/g, '""')}"`
}

/** One CSV record ending in CRLF. */
export function csvRow(values: readonly (string | number | boolean | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`
}

export { parseCsv } from './read.ts'
