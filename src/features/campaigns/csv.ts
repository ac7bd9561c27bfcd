// A campaign's contacts from CSV, for its upload and for the preview of a file; the rows come
// from the appliance's one CSV reader (platform/csv). Pure.
import { parseCsv as csvRows } from '../../platform/csv/index.ts'
import { validation, type FieldIssue } from '../../platform/errors.ts'
import { MAX_VARIABLES } from '../../platform/schema/index.ts'

export interface CsvContact {
  to: string
  dynamicVariables: Record<string, string>
  /** The `timezone` column's cell, trimmed; absent when empty or there is no such column. */
  timezone?: string
  /** The line the row starts on, counted from 1 (the header is line 1; quoted line breaks and blank lines count). */
  line: number
}

/** Rows of the CSV; `lines`, when given, gets the line each row starts on (from 1). */
export const parseCsv = (text: string, maxRows = Infinity, lines?: number[]) => csvRows(text, maxRows, lines, 'contactsCsv')

/** Where a CSV field is, for error paths and messages: `contactsCsv[line 3].to`. */
export const csvPath = (line: number, column?: string) => `contactsCsv[line ${line}]${column === undefined ? '' : `.${column}`}`

/** What a variable may be named, so that a {{placeholder}} can name it. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/

/** Row-width issues listed at most (each row after the header may have one). */
const MAX_ROW_ISSUES = 20

export interface CsvTable {
  /** The header row's cells, trimmed. */
  header: string[]
  /** The rows after the header, blank lines left out. */
  rows: string[][]
  /** The line each row starts on (the header is line 1). */
  lines: number[]
}

/** The header and the rows after it; throws only for a quoted field that is never closed. */
export function readCsv(text: string): CsvTable {
  const lines: number[] = []
  const all = parseCsv(text, Infinity, lines)
  return { header: (all[0] ?? []).map((h) => h.trim()), rows: all.slice(1), lines: lines.slice(1) }
}

/** The columns that are not variables: the number to call and the contact's own time zone. */
const RESERVED = ['to', 'timezone']

/**
 * The first guess at a column mapping for a header people wrote: the column named `to`, else the
 * first named like a phone number, is `to`; the column named `timezone`, else the first named like
 * a time zone, is `timezone`; every other keeps its name made into a variable name.
 */
export function suggestColumns(header: readonly string[]): string[] {
  const phone = header.includes('to') ? header.indexOf('to') : header.findIndex((h) => /^(to|phone|number|phone[ _]?number|mobile|e164|tel|telephone)$/i.test(h))
  const zone = header.includes('timezone') ? header.indexOf('timezone') : header.findIndex((h, i) => i !== phone && /^(time[ _]?zone|tz)$/i.test(h))
  return header.map((h, i) => {
    if (i === phone) return 'to'
    if (i === zone) return 'timezone'
    if (h === '') return ''
    const name = h.replace(/[^A-Za-z0-9_.-]/g, '_')
    return VARIABLE_NAME.test(name) ? name : `_${name}`
  })
}

/**
 * The name each column is read as: its header, or `columns[i]` when a mapping of the header's
 * width is given (`to`, a variable name, or '' to leave the column out). Issues for names no
 * {{placeholder}} can use.
 */
function columnNames(header: readonly string[], columns?: readonly string[]): { names: string[]; issues: FieldIssue[] } {
  const names = columns ? columns.map((c) => c.trim()) : [...header]
  const issues: FieldIssue[] = []
  if (names.length > MAX_VARIABLES + 1) issues.push({ path: 'contactsCsv', message: `has ${names.length} columns: at most a \`to\` column and ${MAX_VARIABLES} variables` })
  names.forEach((name, c) => {
    if (RESERVED.includes(name) || name === '' || VARIABLE_NAME.test(name)) return
    const message = `column ${c + 1}: variable names must look like {{placeholders}}: a letter or _, then letters, digits, _ . -`
    issues.push(columns ? { path: `columns[${c}]`, message } : { path: csvPath(1, name), message: `line 1, ${message}` })
  })
  for (const reserved of RESERVED) {
    if (names.filter((n) => n === reserved).length > 1) issues.push({ path: columns ? 'columns' : csvPath(1, reserved), message: `only one column may be \`${reserved}\`` })
  }
  return { names, issues }
}

/**
 * A header row with a `to` column (after the mapping, if any); a `timezone` column is the
 * contact's own zone; every other named column becomes a dynamic variable.
 */
export function csvContacts(text: string, columns?: readonly string[]): { table: CsvTable; names: string[]; contacts: CsvContact[]; issues: FieldIssue[] } {
  const table = readCsv(text)
  const { header, rows, lines } = table
  if (!header.length) return { table, names: [], contacts: [], issues: [{ path: 'contactsCsv', message: 'empty: a header row with a `to` column is required' }] }
  if (columns && columns.length !== header.length) {
    return { table, names: [...header], contacts: [], issues: [{ path: 'columns', message: `has ${columns.length} entries; the header (line 1) has ${header.length} columns` }] }
  }
  const { names, issues } = columnNames(header, columns)
  const toIndex = names.indexOf('to')
  const zoneIndex = names.indexOf('timezone')
  if (toIndex < 0) issues.push({ path: 'contactsCsv', message: 'line 1 (the header) has no `to` column' })
  if (toIndex < 0 || issues.length) return { table, names, contacts: [], issues }
  let widthIssues = 0
  const contacts = rows.map((row, r) => {
    const line = lines[r]!
    if (row.length !== names.length && widthIssues++ < MAX_ROW_ISSUES) issues.push({ path: csvPath(line), message: `line ${line} has ${row.length} fields; the header (line 1) has ${names.length}` })
    const dynamicVariables: Record<string, string> = {}
    names.forEach((name, c) => {
      if (c !== toIndex && c !== zoneIndex && name && row[c] !== undefined && row[c] !== '') dynamicVariables[name] = row[c]!
    })
    const timezone = zoneIndex < 0 ? '' : (row[zoneIndex] ?? '').trim()
    return { to: (row[toIndex] ?? '').trim(), dynamicVariables, line, ...(timezone ? { timezone } : {}) }
  })
  return { table, names, contacts, issues }
}

/** csvContacts, refused with one 422 naming every problem of the file. */
export function contactsFromCsv(text: string, columns?: readonly string[]): CsvContact[] {
  const { contacts, issues } = csvContacts(text, columns)
  if (issues.length) throw validation(issues)
  return contacts
}
