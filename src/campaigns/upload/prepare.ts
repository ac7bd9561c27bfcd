// The heavy part of a campaign's upload, run in a worker thread (worker.ts): the JSON or CSV
// parsed, every contact validated and normalised, duplicates merged. Pure: bytes in, rows out.
import { Value } from '@sinclair/typebox/value'
import { type FieldIssue, validation } from '../../errors.ts'
import { JOB_JSON_LIMITS, parseJsonObject } from '../../http/body.ts'
import { fromValidation } from '../../http/errors.ts'
import { MAX_VARIABLES } from '../../http/models.ts'
// from the module itself, not numbers/index.ts: that face brings the SIP registration graph, with
// which the executable's worker thread ends before its first message
import { strictE164 } from '../../numbers/e164.ts'
import { CreateJobBody, MAX_CONTACTS } from '../campaigns.model.ts'
import { contactsFromCsv, parseCsvHeader } from '../csv.ts'

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
}

/** The body's other fields (JSON bodies; validated by the route's schema) and its contacts. */
export interface PreparedUpload {
  head: Record<string, unknown>
  contacts: PreparedContacts
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/
export const MAX_ISSUES = 50
export const MAX_WARNINGS = 100
const CONTACTS_SCHEMA = CreateJobBody.properties.contacts

interface Contact {
  to: unknown
  dynamicVariables?: Record<string, string | number | boolean>
}

export function prepareUpload(input: UploadInput): PreparedUpload {
  if (input.csv) return { head: {}, contacts: normalise(csvContacts(Buffer.from(input.bytes).toString('utf8')), input.used) }
  const { contacts, contactsCsv, ...head } = parseJsonObject(input.bytes, JOB_JSON_LIMITS) as Record<string, unknown>
  if (contacts !== undefined && contactsCsv !== undefined) throw validation([{ path: 'contactsCsv', message: 'give contacts or contactsCsv, not both' }])
  if (contactsCsv !== undefined) {
    if (typeof contactsCsv !== 'string') throw validation([{ path: 'contactsCsv', message: 'must be a string' }])
    return { head, contacts: normalise(csvContacts(contactsCsv), input.used) }
  }
  if (contacts !== undefined && !Value.Check(CONTACTS_SCHEMA, contacts)) {
    const all = [...Value.Errors(CONTACTS_SCHEMA, contacts)].map((e) => ({ type: e.type, path: `/contacts${e.path}`, message: e.message, schema: e.schema, value: e.value }))
    throw fromValidation({ type: 'body', all })
  }
  return { head, contacts: normalise((contacts ?? []) as Contact[], input.used) }
}

function csvContacts(text: string): Contact[] {
  const columns = parseCsvHeader(text)
  if (columns > MAX_VARIABLES + 1) throw validation([{ path: 'contactsCsv', message: `has ${columns} columns: at most a \`to\` column and ${MAX_VARIABLES} variables` }])
  return contactsFromCsv(text)
}

/** Numbers checked, variable names checked, duplicates merged (the first contact wins), missing variables reported. */
export function normalise(contacts: Contact[], used: string[]): PreparedContacts {
  const issues: FieldIssue[] = []
  const warnings: Warning[] = []
  const issue = (path: string, message: string) => issues.length < MAX_ISSUES && issues.push({ path, message })
  const warn = (path: string, message: string) => warnings.length < MAX_WARNINGS && warnings.push({ path, message })
  if (!contacts.length) issue('contacts', 'at least one contact is required')
  if (contacts.length > MAX_CONTACTS) issue('contacts', `at most ${MAX_CONTACTS} contacts per job`)
  const firstIndex = new Map<string, number>()
  const to: string[] = []
  const variableTexts: string[] = []
  let merged = 0
  for (let i = 0; i < contacts.length && issues.length < MAX_ISSUES; i++) {
    const c = contacts[i]!
    const number = typeof c.to === 'string' ? strictE164(c.to.trim()) : undefined
    if (!number) {
      issue(`contacts[${i}].to`, 'must be an E.164 number such as +14155550123')
      continue
    }
    const variables: Record<string, string> = {}
    for (const [k, v] of Object.entries(c.dynamicVariables ?? {})) {
      if (!VARIABLE_NAME.test(k)) issue(`contacts[${i}].dynamicVariables.${k}`, 'names must look like {{placeholders}}: a letter or _, then letters, digits, _ . -')
      else variables[k] = String(v)
    }
    const first = firstIndex.get(number)
    if (first !== undefined) {
      merged++
      warn(`contacts[${i}].to`, `duplicate of contacts[${first}]; merged: the number is called once, with the first contact's variables`)
      continue
    }
    firstIndex.set(number, i)
    const missing = used.filter((n) => !Object.hasOwn(variables, n))
    if (missing.length) warn(`contacts[${i}].dynamicVariables`, `missing ${missing.join(', ')} used by the agent; spoken as the placeholder text`)
    to.push(number)
    variableTexts.push(JSON.stringify(variables))
  }
  if (warnings.length === MAX_WARNINGS) warnings.push({ path: 'contacts', message: `only the first ${MAX_WARNINGS} warnings are listed` })
  if (merged) warnings.unshift({ path: 'contacts', message: `${merged} duplicate number(s) merged` })
  return { count: to.length, numbers: to.join('\n'), variables: variableTexts.join('\n'), given: contacts.length, issues, warnings, merged }
}
