import { t } from 'elysia'
import { Guarded, MAX_VARIABLES } from '../../platform/schema/index.ts'

/** The most contacts one job may hold (the route's body limit is OUTBOUND_JOB_MAX_BODY_BYTES). */
export const MAX_CONTACTS = 100_000

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type Weekday = (typeof WEEKDAYS)[number]

const Time = t.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$', description: 'local time HH:MM (24:00 = end of day)' })

export const CallingWindow = t.Object(
  {
    start: Time,
    end: Time,
    days: t.Optional(t.Array(t.UnionEnum([...WEEKDAYS]), { minItems: 1, maxItems: 7, uniqueItems: true, description: 'default: every day' })),
  },
  { description: "Hours in the contact's local time when it may be called (in every zone at once when its number may be in several); default 08:00-21:00 every day" },
)

export const Amd = t.Object(
  {
    enabled: t.Optional(t.Boolean({ default: false })),
    action: t.Optional(t.UnionEnum(['hangup', 'voicemail'], { default: 'hangup', description: 'on a machine: hang up, or wait for the beep and leave voicemailMessage' })),
    voicemailMessage: t.Optional(t.String({ maxLength: 2000, description: '{{variables}} are filled from the contact' })),
  },
  { description: 'Answering-machine detection in the first seconds after answer' },
)

export const JobSettingsInput = t.Object({
  maxConcurrent: t.Optional(t.Integer({ minimum: 1, maximum: 10, default: 1 })),
  retryAttempts: t.Optional(t.Integer({ minimum: 0, maximum: 3, default: 0, description: 'retries of unanswered attempts (no answer, busy; voicemail when retryVoicemail)' })),
  retryDelayMs: t.Optional(t.Integer({ minimum: 0, maximum: 7 * 86_400_000, default: 600_000, description: 'wait before a retry' })),
  retryVoicemail: t.Optional(t.Boolean({ default: false, description: 'a machine answering counts as unanswered and is retried' })),
  ringTimeoutMs: t.Optional(t.Integer({ minimum: 1000, maximum: 120_000, default: 30_000, description: 'an attempt still ringing after this is cancelled (no answer)' })),
  scheduling: t.Optional(
    t.Object({
      startAt: t.Optional(t.String({ description: 'ISO 8601; without an offset it is read in `timezone`' })),
      timezone: t.Optional(
        t.String({ description: "IANA time zone; startAt is read in it (default UTC); the calling window's zone for contacts whose number may be in several zones or none, and that have no timezone of their own" }),
      ),
    }),
  ),
  callingWindow: t.Optional(CallingWindow),
  answeringMachineDetection: t.Optional(Amd),
})
export type JobSettingsInput = typeof JobSettingsInput.static

export const JobSettings = t.Object({
  maxConcurrent: t.Integer(),
  retryAttempts: t.Integer(),
  retryDelayMs: t.Integer(),
  retryVoicemail: t.Boolean(),
  ringTimeoutMs: t.Integer(),
  scheduling: t.Optional(t.Object({ startAt: t.Optional(t.String()), timezone: t.Optional(t.String()) })),
  callingWindow: t.Object({ start: t.String(), end: t.String(), days: t.Array(t.String()) }),
  answeringMachineDetection: t.Object({ enabled: t.Boolean(), action: t.String(), voicemailMessage: t.String() }),
})
export interface JobSettings {
  maxConcurrent: number
  retryAttempts: number
  retryDelayMs: number
  retryVoicemail: boolean
  ringTimeoutMs: number
  scheduling?: { startAt?: string; timezone?: string }
  callingWindow: { start: string; end: string; days: Weekday[] }
  answeringMachineDetection: { enabled: boolean; action: 'hangup' | 'voicemail'; voicemailMessage: string }
}

export const ContactInput = t.Object({
  to: t.String({ description: 'a phone number: +14155550123, "+1 (415) 555-0123"; national formats with the job\'s defaultCountry' }),
  // keys are checked by the service, which names every bad one with its contact's path
  dynamicVariables: t.Optional(
    Guarded(t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean()]), { maxProperties: MAX_VARIABLES, description: "filled into the agent's {{placeholders}} for this contact" }), `must be an object of at most ${MAX_VARIABLES} variables`),
  ),
  timezone: t.Optional(t.String({ description: "IANA time zone (America/Chicago) of the person called: the calling window is read in it, before the number's zone and the job's" })),
})

export const CreateJobBody = t.Object({
  agentId: t.String(),
  phoneNumberId: t.String(),
  name: t.Optional(t.String({ maxLength: 200 })),
  contacts: t.Optional(Guarded(t.Array(ContactInput, { maxItems: MAX_CONTACTS }), 'must be a list of contacts {to, dynamicVariables?}')),
  contactsCsv: t.Optional(t.String({ description: 'CSV with a header row: a `to` column, an optional `timezone` column (the contact\'s IANA zone), every other column a dynamic variable' })),
  defaultCountry: t.Optional(
    t.String({ maxLength: 2, description: 'ISO 3166 alpha-2 code (US, GB, DE): the country of contact numbers written without +country code, such as (415) 555-0123' }),
  ),
  settings: t.Optional(JobSettingsInput),
})
export type CreateJobBody = typeof CreateJobBody.static

export const Progress = t.Object({ answered: t.Integer(), noAnswer: t.Integer(), busy: t.Integer(), voicemail: t.Integer(), failed: t.Integer() })

export const OutboundJob = t.Object({
  id: t.String(),
  name: t.String(),
  agentId: t.String(),
  agentName: t.Optional(t.String()),
  phoneNumberId: t.String(),
  status: t.String({ description: 'scheduled, in_progress, paused, completed, cancelled or failed' }),
  totalContacts: t.Integer(),
  completedContacts: t.Integer({ description: 'contacts reached: answered by a person or a machine' }),
  failedContacts: t.Integer({ description: 'contacts never reached after all attempts: no answer, busy, failed' }),
  settings: JobSettings,
  createdAt: t.String(),
  startedAt: t.Optional(t.Union([t.String(), t.Null()])),
  completedAt: t.Optional(t.String()),
})

export const OutboundJobDetail = t.Composite([
  OutboundJob,
  t.Object({
    phoneNumber: t.String(),
    pendingContacts: t.Integer(),
    activeContacts: t.Integer(),
    suppressedContacts: t.Integer({ description: 'on the do-not-call list: never dialled' }),
    cancelledContacts: t.Integer({ description: 'never dialled because the job was cancelled' }),
    progress: Progress,
  }),
])

export const Warning = t.Object({ path: t.String(), message: t.String() })

export const OutboundContact = t.Object({
  id: t.String(),
  to: t.String(),
  dynamicVariables: t.Record(t.String(), t.String()),
  status: t.String({ description: 'pending, dialing, completed, failed, suppressed or cancelled' }),
  attempts: t.Integer(),
  lastOutcome: t.Union([t.String(), t.Null()], { description: 'answered, no_answer, busy, voicemail, failed, suppressed or cancelled' }),
  callIds: t.Array(t.String()),
  nextAttemptAt: t.Union([t.String(), t.Null()], {
    description: 'while pending: the earliest time of the next attempt, inside the calling window in every zone of `timezones`; null when not pending, or when that window is never open in all of them at once',
  }),
  nextAttemptLocal: t.Union([t.String(), t.Null()], { description: 'nextAttemptAt in local time with its offset (2026-12-02T08:00:00.000-08:00); null when its zones differ in offset then' }),
  timezone: t.Union([t.String(), t.Null()], { description: 'the zone the calling window is read in; null when the window must be open in several zones at once (then timezones lists them)' }),
  timezones: t.Array(t.String(), { description: 'every zone the window must be open in at once: one, several (a number such as +1 800 that may be in any of them), or none when no zone is known' }),
  timezoneSource: t.UnionEnum(['contact', 'number', 'job'], { description: "where the zones come from: the contact's own timezone, its number's prefix, or the job's scheduling.timezone (for a number that may be in several zones or none)" }),
})

export const ContactsQuery = t.Object({
  // t.UnionEnum in a query fills in its first value when absent
  status: t.Optional(t.Union(['pending', 'dialing', 'completed', 'failed', 'suppressed', 'cancelled'].map((s) => t.Literal(s)))),
  limit: t.Optional(t.Integer({ title: 'limit', minimum: 1, maximum: 500, default: 100 })),
  cursor: t.Optional(t.String({ description: "the previous page's nextCursor" })),
})
export type ContactsQuery = typeof ContactsQuery.static

export const PreviewQuery = t.Object({
  columns: t.Optional(t.String({ description: 'a JSON array, one entry per column of the header: "to", "timezone", a variable name, or "" to leave the column out; absent: the header as written' })),
  defaultCountry: t.Optional(t.String({ description: 'the country (ISO 3166 alpha-2) of numbers written without +country code' })),
  agentId: t.Optional(t.String({ description: 'an outbound agent: rows lacking a variable it uses get a warning' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 10, description: 'rows shown' })),
})

export const ContactsPreview = t.Object({
  header: t.Array(t.String(), { description: 'the header row (line 1), trimmed, without a byte order mark' }),
  columns: t.Array(t.String(), { description: 'the name each column was read as: the columns given, else the header' }),
  suggestedColumns: t.Array(t.String(), { description: 'a mapping to start from: the phone-like column as "to", a time-zone column as "timezone", the others as variable names' }),
  rows: t.Array(
    t.Object({
      line: t.Integer({ description: 'the line the row starts on; the header is line 1' }),
      cells: t.Array(t.String()),
      to: t.Union([t.String(), t.Null()], { description: 'the number as the job would store it (E.164); null when it cannot be read' }),
      dynamicVariables: t.Record(t.String(), t.String()),
      timezone: t.Union([t.String(), t.Null()], { description: "the row's own zone (the timezone column) as the job would store it; null when it has none or it is no IANA zone" }),
    }),
    { description: 'the first `limit` rows after the header' },
  ),
  rowCount: t.Integer({ description: 'rows after the header, blank lines left out' }),
  errors: t.Array(Warning, { description: 'what POST /api/outbound/jobs would refuse this file for (at most 50), with its paths; empty: it would be accepted' }),
  warnings: t.Array(Warning, { description: 'duplicates merged, variables the agent uses missing' }),
})
