// The one CSV reader of the appliance (the writer is index.ts): RFC 4180, quoted fields, doubled
// quotes, CRLF or LF, a byte order mark dropped. Pure. Campaign contacts and knowledge-base FAQs
// read their files with it.
import { validation } from '../errors.ts'

/** Rows of the CSV; `lines`, when given, gets the line each row starts on (from 1). */
export function parseCsv(text: string, maxRows = Infinity, lines?: number[], path = 'csv'): string[][] {
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
  if (quoted) throw validation([{ path, message: `a quoted field opened on line ${rowLine} is not closed` }])
  if (field !== '' || row.length) {
    row.push(field)
    rows.push(row)
    lines?.push(rowLine)
  }
  return rows
}
