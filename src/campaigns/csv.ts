// Contacts from CSV (RFC 4180: quoted fields, doubled quotes, CRLF or LF). Pure.
import { validation, type FieldIssue } from '../errors.ts'

export interface CsvContact {
  to: string
  dynamicVariables: Record<string, string>
  /** The line the row starts on, counted from 1 (the header is line 1; quoted line breaks and blank lines count). */
  line: number
}

/** Rows of the CSV; `lines`, when given, gets the line each row starts on (from 1). */
export function parseCsv(text: string, maxRows = Infinity, lines?: number[]): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  let i = 0
  let line = 1
  let rowLine = 1
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  while (i < src.length) {
    const ch = src[i]!
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        field += '"'
        i += 2
        continue
      }
      if (ch === '"') quoted = false
      else field += ch
      if (ch === '\n' || (ch === '\r' && src[i + 1] !== '\n')) line++
      i++
      continue
    }
    if (ch === '"' && field === '') quoted = true
    else if (ch === ',') {
      row.push(field)
      field = ''
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++
      row.push(field)
      field = ''
      if (row.length > 1 || row[0] !== '') {
        rows.push(row)
        lines?.push(rowLine)
      }
      row = []
      rowLine = ++line
      if (rows.length >= maxRows) return rows
    } else field += ch
    i++
  }
  if (quoted) throw validation([{ path: 'contactsCsv', message: `a quoted field opened on line ${rowLine} is not closed` }])
  if (field !== '' || row.length) {
    row.push(field)
    rows.push(row)
    lines?.push(rowLine)
  }
  return rows
}

/** The header's column names (trimmed; none for an empty text), without reading further. */
export const parseCsvHeader = (text: string): string[] => (parseCsv(text, 1)[0] ?? []).map((h) => h.trim())

/** Where a CSV field is, for error paths and messages: `contactsCsv[line 3].to`. */
export const csvPath = (line: number, column?: string) => `contactsCsv[line ${line}]${column === undefined ? '' : `.${column}`}`

/** A header row with a `to` column; every other column becomes a dynamic variable. */
export function contactsFromCsv(text: string): CsvContact[] {
  const lines: number[] = []
  const rows = parseCsv(text, Infinity, lines)
  const header = rows[0]?.map((h) => h.trim())
  const issues: FieldIssue[] = []
  if (!header) throw validation([{ path: 'contactsCsv', message: 'empty: a header row with a `to` column is required' }])
  const toIndex = header.indexOf('to')
  if (toIndex < 0) throw validation([{ path: 'contactsCsv', message: 'line 1 (the header) has no `to` column' }])
  const out: CsvContact[] = []
  for (let r = 1; r < rows.length; r++) {
    const row = rows[r]!
    const line = lines[r]!
    if (row.length !== header.length && issues.length < 20) issues.push({ path: csvPath(line), message: `line ${line} has ${row.length} fields; the header (line 1) has ${header.length}` })
    const dynamicVariables: Record<string, string> = {}
    header.forEach((name, c) => {
      if (c !== toIndex && name && row[c] !== undefined && row[c] !== '') dynamicVariables[name] = row[c]!
    })
    out.push({ to: (row[toIndex] ?? '').trim(), dynamicVariables, line })
  }
  if (issues.length) throw validation(issues)
  return out
}
