// The heavy part of a campaign's upload, run in a worker thread (worker.ts): the JSON or CSV
// parsed, every contact validated and normalised, duplicates merged. Pure: bytes in, rows out.
import { Value } from '@sinclair/typebox/value'
import { type FieldIssue, validation } from '../../../platform/errors.ts'
import { JOB_JSON_LIMITS, parseJsonObject } from '../../../platform/schema/index.ts'
import { fromValidation, refuseUnknownFields } from '../../../platform/schema/index.ts'
// from the module itself, not numbers/index.ts: that face brings the SIP registration graph, with
// which the executable's worker thread ends before its first message
import { contactE164, countryCode } from '../../numbers/e164.ts'
// names.ts alone: the zones' face loads the prefix data, which this thread never needs
import { canonicalZone } from '../zones/names.ts'
import type { CountryCode } from 'libphonenumber-js'
import { CreateJobBody, MAX_CONTACTS } from '../campaigns.model.ts'
import { csvContacts, csvPath, VARIABLE_NAME } from '../csv.ts'

export interface Warning {
  path: string
  message: string
}

/**
 * Contacts ready to store, as two texts of one line per contact: the numbers in E.164 and the
 * variables as JSON (which never holds a raw line break). Two strings cross from the worker
 * thread at once, where 200,000 small ones cost the event loop ~100 ms to receive.
 */
export interface PreparedContacts {
  count: number
  numbers: string
  variables: string
  /** One line per contact: its own time zone (canonical), or empty. */
  timezones: string
  /** Where each contact was given, for errors found later: its index in contacts[], or its CSV line. */
  origins: Int32Array
  /** The contacts came as CSV (origins are lines). */
  csv: boolean
  /** How many contacts were given (before duplicates were merged). */
  given: number
  issues: FieldIssue[]
  warnings: Warning[]
  merged: number
}

export interface UploadInput {
  bytes: Uint8Array
  /** The body is CSV (text/csv): contacts only, the other fields came in the query. */
  csv: boolean
  /** Variables the agent uses that no call fills by itself: a contact lacking one gets a warning. */
  used: string[]
  /** With a CSV body: the defaultCountry query parameter (a JSON body names its own). */
  defaultCountry?: string
  /** With a CSV body: the columns query parameter, the name each column is read as. */
  columns?: string[]
}

/** The body's other fields (JSON bodies; validated by the route's schema) and its contacts. */
export interface PreparedUpload {
  head: Record<string, unknown>
  contacts: PreparedContacts
}

export const MAX_ISSUES = 50
export const MAX_WARNINGS = 100
const CONTACTS_SCHEMA = CreateJobBody.properties.contacts

interface Contact {
  to: unknown
  dynamicVariables?: Record<string, string | number | boolean>
  timezone?: string
  /** A CSV row's line (from 1, the header is line 1): errors name it and the column instead of contacts[i]. */
  line?: number
}

export interface NormaliseOptions {
  /** Reads numbers written without +country code. */
  defaultCountry?: CountryCode
  /** A CSV's `to` column, counted from 1. */
  toColumn?: number
  /** A CSV's `timezone` column, counted from 1. */
  zoneColumn?: number
}

/** The job's defaultCountry, checked before any number is read with it. */
export function defaultCountryOf(raw: unknown): CountryCode | undefined {
  if (raw === undefined || raw === '') return undefined
  const code = typeof raw === 'string' ? countryCode(raw) : undefined
  if (!code) throw validation([{ path: 'defaultCountry', message: 'must be an ISO 3166 alpha-2 country code with a numbering plan, such as US, GB or DE' }])
  return code
}

export function prepareUpload(input: UploadInput): PreparedUpload {
  if (input.csv) return { head: {}, contacts: fromCsv(Buffer.from(input.bytes).toString('utf8'), input.used, defaultCountryOf(input.defaultCountry), input.columns) }
  const body = parseJsonObject(input.bytes, JOB_JSON_LIMITS) as Record<string, unknown>
  refuseUnknownFields(CreateJobBody, body)
  const { contacts, contactsCsv, ...head } = body
  const defaultCountry = defaultCountryOf(head.defaultCountry)
  if (contacts !== undefined && contactsCsv !== undefined) throw validation([{ path: 'contactsCsv', message: 'give contacts or contactsCsv, not both' }])
  if (contactsCsv !== undefined) {
    if (typeof contactsCsv !== 'string') throw validation([{ path: 'contactsCsv', message: 'must be a string' }])
    return { head, contacts: fromCsv(contactsCsv, input.used, defaultCountry) }
  }
  if (contacts !== undefined && !Value.Check(CONTACTS_SCHEMA, contacts)) {
    const all = [...Value.Errors(CONTACTS_SCHEMA, contacts)].map((e) => ({ type: e.type, path: `/contacts${e.path}`, message: e.message, schema: e.schema, value: e.value }))
    throw fromValidation({ type: 'body', all })
  }
  return { head, contacts: normalise((contacts ?? []) as Contact[], input.used, { defaultCountry }) }
}

function fromCsv(text: string, used: string[], defaultCountry: CountryCode | undefined, columns?: string[]): PreparedContacts {
  const { names, contacts, issues } = csvContacts(text, columns)
  if (issues.length) throw validation(issues.slice(0, MAX_ISSUES))
  return normalise(contacts, used, { defaultCountry, toColumn: names.indexOf('to') + 1, zoneColumn: names.indexOf('timezone') + 1 })
}

/** Numbers checked, variable names checked, duplicates merged (the first contact wins), missing variables reported. */
export function normalise(contacts: Contact[], used: string[], opts: NormaliseOptions = {}): PreparedContacts {
  const issues: FieldIssue[] = []
  const warnings: Warning[] = []
  const issue = (path: string, message: string) => issues.length < MAX_ISSUES && issues.push({ path, message })
  const warn = (path: string, message: string) => warnings.length < MAX_WARNINGS && warnings.push({ path, message })
  if (!contacts.length) issue('contacts', 'at least one contact is required')
  if (contacts.length > MAX_CONTACTS) issue('contacts', `at most ${MAX_CONTACTS} contacts per job`)
  const firstAt = new Map<string, string>()
  const to: string[] = []
  const variableTexts: string[] = []
  const zones: string[] = []
  const origins: number[] = []
  let merged = 0
  for (let i = 0; i < contacts.length && issues.length < MAX_ISSUES; i++) {
    const c = contacts[i]!
    const csv = c.line !== undefined
    const where = csv ? `line ${c.line}` : `contacts[${i}]`
    const toPath = csv ? csvPath(c.line!, 'to') : `contacts[${i}].to`
    const parsed = typeof c.to === 'string' ? contactE164(c.to, opts.defaultCountry) : { error: 'must be a string' }
    if ('error' in parsed) {
      issue(toPath, csv ? `line ${c.line}, column ${opts.toColumn ?? '?'} (to): ${parsed.error}` : parsed.error)
      continue
    }
    const number = parsed.e164
    const variables: Record<string, string> = {}
    for (const [k, v] of Object.entries(c.dynamicVariables ?? {})) {
      if (!VARIABLE_NAME.test(k)) issue(`contacts[${i}].dynamicVariables.${k}`, 'names must look like {{placeholders}}: a letter or _, then letters, digits, _ . -')
      else variables[k] = String(v)
    }
    const zone = c.timezone?.trim() ? canonicalZone(c.timezone.trim()) : ''
    if (zone === undefined) {
      const message = `unknown IANA time zone '${c.timezone}': write it as America/New_York, Europe/London, ...`
      issue(csv ? csvPath(c.line!, 'timezone') : `contacts[${i}].timezone`, csv ? `line ${c.line}, column ${opts.zoneColumn ?? '?'} (timezone): ${message}` : message)
      continue
    }
    const first = firstAt.get(number)
    if (first !== undefined) {
      merged++
      warn(toPath, `${csv ? `line ${c.line}: ` : ''}duplicate of ${first}; merged: the number is called once, with the first contact's variables`)
      continue
    }
    firstAt.set(number, where)
    const missing = used.filter((n) => !Object.hasOwn(variables, n))
    if (missing.length) warn(csv ? csvPath(c.line!) : `contacts[${i}].dynamicVariables`, `${csv ? `line ${c.line}: ` : ''}missing ${missing.join(', ')} used by the agent; spoken as the placeholder text`)
    to.push(number)
    variableTexts.push(JSON.stringify(variables))
    zones.push(zone)
    origins.push(csv ? c.line! : i)
  }
  if (warnings.length === MAX_WARNINGS) warnings.push({ path: 'contacts', message: `only the first ${MAX_WARNINGS} warnings are listed` })
  if (merged) warnings.unshift({ path: 'contacts', message: `${merged} duplicate number(s) merged` })
  return {
    count: to.length,
    numbers: to.join('\n'),
    variables: variableTexts.join('\n'),
    timezones: zones.join('\n'),
    origins: Int32Array.from(origins),
    csv: contacts[0]?.line !== undefined,
    given: contacts.length,
    issues,
    warnings,
    merged,
  }
}
