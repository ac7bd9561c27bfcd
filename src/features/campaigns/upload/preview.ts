// A contacts CSV previewed before a job is created (POST /api/outbound/jobs/preview): read by the
// parser and checked by the rules of the upload itself, so that what the console shows is what
// the upload will do. Pure: bytes in, the preview out.
import type { FieldIssue } from '../../../platform/errors.ts'
import { contactE164 } from '../../numbers/e164.ts'
import { csvContacts, suggestColumns } from '../csv.ts'
import { canonicalZone } from '../zones/names.ts'
import { defaultCountryOf, MAX_ISSUES, normalise, type Warning } from './prepare.ts'

export const PREVIEW_ROWS_DEFAULT = 10
export const PREVIEW_ROWS_MAX = 100

export interface PreviewInput {
  bytes: Uint8Array
  /** Variables the agent uses (when the preview names one): a row lacking one gets a warning. */
  used: string[]
  defaultCountry?: string
  /** The name each column is read as; absent: the header as written. */
  columns?: string[]
  /** Rows shown, from the first after the header. */
  limit: number
}

export interface PreviewRow {
  /** The line the row starts on (the header is line 1). */
  line: number
  cells: string[]
  /** The number as the job would store it (E.164); null when it cannot be read (errors say why). */
  to: string | null
  dynamicVariables: Record<string, string>
  /** The row's own zone (its timezone column) as the job would store it; null when none or unknown (errors say why). */
  timezone: string | null
}

export interface ContactsPreview {
  header: string[]
  /** The names the columns were read as: the columns given, else the header. */
  columns: string[]
  /** A mapping to start from: the phone-like column as `to`, the others as variable names. */
  suggestedColumns: string[]
  rows: PreviewRow[]
  /** Rows after the header, blank lines left out. */
  rowCount: number
  /** What the upload would refuse the file for (at most MAX_ISSUES); empty: it would be accepted. */
  errors: FieldIssue[]
  warnings: Warning[]
}

/** Throws (422) only when the file cannot be read at all (a quote never closed) or defaultCountry is not a country. */
export function previewContacts(input: PreviewInput): ContactsPreview {
  const defaultCountry = defaultCountryOf(input.defaultCountry)
  const { table, names, contacts, issues } = csvContacts(Buffer.from(input.bytes).toString('utf8'), input.columns)
  const toIndex = names.indexOf('to')
  const checked = contacts.length || !issues.length ? normalise(contacts, input.used, { defaultCountry, toColumn: toIndex + 1, zoneColumn: names.indexOf('timezone') + 1 }) : undefined
  const rows = table.rows.slice(0, input.limit).map((cells, r): PreviewRow => {
    const contact = contacts[r]
    const parsed = contact ? contactE164(contact.to, defaultCountry) : undefined
    const timezone = contact?.timezone ? (canonicalZone(contact.timezone) ?? null) : null
    return { line: table.lines[r]!, cells, to: parsed && 'e164' in parsed ? parsed.e164 : null, dynamicVariables: contact?.dynamicVariables ?? {}, timezone }
  })
  return {
    header: table.header,
    columns: names,
    suggestedColumns: suggestColumns(table.header),
    rows,
    rowCount: table.rows.length,
    errors: [...issues, ...(checked?.issues ?? [])].slice(0, MAX_ISSUES),
    warnings: checked?.warnings ?? [],
  }
}
