// Contacts from CSV (RFC 4180: quoted fields, doubled quotes, CRLF or LF). Pure.
import { validation, type FieldIssue } from '../errors.ts'

export interface CsvContact {
  to: string
  dynamicVariables: Record<string, string>
}

export function parseCsv(text: string, maxRows = Infinity): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  let i = 0
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
      if (row.length > 1 || row[0] !== '') rows.push(row)
      row = []
      if (rows.length >= maxRows) return rows
    } else field += ch
    i++
  }
  if (quoted) throw validation([{ path: 'contactsCsv', message: 'a quoted field is not closed' }])
  if (field !== '' || row.length) {
    row.push(field)
    rows.push(row)
  }
  return rows
}

/** How many columns the header row has (0 for no header), without reading further. */
export const parseCsvHeader = (text: string): number => parseCsv(text, 1)[0]?.length ?? 0

/** A header row with a `to` column; every other column becomes a dynamic variable. */
export function contactsFromCsv(text: string): CsvContact[] {
  const rows = parseCsv(text)
  const header = rows[0]?.map((h) => h.trim())
  const issues: FieldIssue[] = []
  if (!header) throw validation([{ path: 'contactsCsv', message: 'empty: a header row with a `to` column is required' }])
  const toIndex = header.indexOf('to')
  if (toIndex < 0) throw validation([{ path: 'contactsCsv', message: 'the header row has no `to` column' }])
  const out: CsvContact[] = []
  for (let r = 1; r < rows.length; r++) {
    const row = rows[r]!
    if (row.length !== header.length && issues.length < 20) issues.push({ path: `contactsCsv[line ${r + 1}]`, message: `has ${row.length} fields; the header has ${header.length}` })
    const dynamicVariables: Record<string, string> = {}
    header.forEach((name, c) => {
      if (c !== toIndex && name && row[c] !== undefined && row[c] !== '') dynamicVariables[name] = row[c]!
    })
    out.push({ to: (row[toIndex] ?? '').trim(), dynamicVariables })
  }
  if (issues.length) throw validation(issues)
  return out
}
