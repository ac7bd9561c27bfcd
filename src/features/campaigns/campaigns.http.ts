// Outbound jobs (campaigns): the API, and the dispatcher that places their calls.
import { Elysia, t } from 'elysia'
import type { Db } from '../../platform/db/index.ts'
import type { AuthPlugin, Principal } from '../../http/auth.ts'
import type { Logger } from '../../platform/log.ts'
import { IdParams, NextCursor } from '../../platform/schema/index.ts'
import { PaginationQuery } from '../../platform/schema/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import { ContactsPreview, ContactsQuery, CreateJobBody, MAX_CONTACTS, OutboundContact, OutboundJob, OutboundJobDetail, PreviewQuery, Warning } from './campaigns.model.ts'
import * as service from './campaigns.service.ts'
import { agentVariables, createJob, targetIssues } from './create.ts'
import type { CampaignEvents } from './events.ts'
import { type JobUpload, readContactsPreview, readJobUpload, UploadGate, type UploadTargets } from './upload/index.ts'


export interface CampaignsDeps {
  db: Db
  box: SecretBox
  events: CampaignEvents
  /** Wakes the dispatcher (a job was created or resumed); absent when it is not running. */
  poke(): void
  /** Largest upload of contacts (OUTBOUND_JOB_MAX_BODY_BYTES). */
  maxUploadBytes: number
  /** Start, pause, resume and cancel made through the API are logged here. */
  log: Logger
  /** The clock of job creation (epoch ms): the dispatcher's, so a job is created at the time it is scheduled from. */
  now(): number
}

const CsvQuery = t.Object({
  agentId: t.Optional(t.String()),
  phoneNumberId: t.Optional(t.String()),
  name: t.Optional(t.String()),
  settings: t.Optional(t.String({ description: 'with Content-Type text/csv: the settings object as JSON' })),
  defaultCountry: t.Optional(t.String({ description: 'with Content-Type text/csv: the country (ISO 3166 alpha-2) of numbers written without +country code' })),
  columns: t.Optional(t.String({ description: 'with Content-Type text/csv: a JSON array, one entry per column of the header: "to", a variable name, or "" to leave the column out' })),
})

export function campaignsController(d: CampaignsDeps, auth: AuthPlugin) {
  const Detail = t.Object({ job: OutboundJobDetail })
  const action = (name: 'pause' | 'resume' | 'cancel', summary: string) =>
    [
      `/:id/${name}`,
      async ({ params, principal }: { params: { id: string }; principal: { workspaceId: string } }) => ({ job: await service.act(d, principal.workspaceId, params.id, name) }),
      { permission: 'campaigns:write' as const, params: IdParams, response: Detail, detail: { summary, description: 'Errors: 404, 409 conflict when the job is in a state that does not allow it (see docs/campaigns.md).' } },
    ] as const
  const gate = new UploadGate()
  const uploads = new WeakMap<Request, JobUpload>()
  const targetsIn = (workspaceId: string): UploadTargets => ({
    issues: async (given) => (await targetIssues(d, workspaceId, given)).issues,
    used: (agentId) => agentVariables(d, workspaceId, agentId),
  })
  return new Elysia({ prefix: '/api/outbound/jobs', tags: ['Outbound jobs'] })
    .use(auth)
    .macro({
      // A transform of its own (a route's transform runs before the auth macro's): the body is read
      // here, once the caller is known (the app's parser leaves it), and what is validated is its
      // fields other than the contacts, which a worker thread checked.
      jobUpload: {
        transform: async (ctx) => {
          const { workspaceId } = (ctx as unknown as { principal: Principal }).principal
          const upload = await readJobUpload(ctx.request, ctx.query as typeof CsvQuery.static, d.maxUploadBytes, gate, targetsIn(workspaceId))
          uploads.set(ctx.request, upload)
          ctx.body = upload.head
        },
      },
    })
    .post(
      '',
      async ({ body, principal, request }) => {
        const upload = uploads.get(request)!
        const created = await createJob(d, principal.workspaceId, body, upload.contacts, d.now())
        d.poke()
        return { job: service.toJob(created.row, { names: false }), warnings: created.warnings }
      },
      {
        permission: 'campaigns:write',
        jobUpload: true,
        body: CreateJobBody,
        query: CsvQuery,
        response: t.Object({ job: OutboundJob, warnings: t.Array(Warning) }),
        detail: {
          summary: 'Create an outbound job: call a list of contacts with an agent from a caller-ID number',
          description:
            `Up to ${MAX_CONTACTS} contacts (body limit OUTBOUND_JOB_MAX_BODY_BYTES, 16 MiB by default: larger gets 413), as contacts[] or as CSV: a contactsCsv field, or the body ` +
            'itself with Content-Type text/csv (then agentId, phoneNumberId, name, settings (JSON), defaultCountry and columns (JSON: what each column is read as) are query parameters); a `to` column, ' +
            "an optional `timezone` column (the contact's IANA zone, as contacts[].timezone), every other column a dynamic variable. Numbers may hold spaces, dashes, dots and parentheses; without +country code they need " +
            'defaultCountry (ISO 3166 alpha-2). Duplicate numbers are merged (called once, first contact wins) and reported in warnings, ' +
            'as are contacts lacking a variable the agent uses. Numbers on the do-not-call list count as suppressed. Without a future ' +
            'settings.scheduling.startAt the job is in_progress at once. Each contact is called inside the calling window of its own timezone, else its number\'s zone, else (a number of several zones or none) ' +
            'the job\'s scheduling.timezone, else every zone of the number at once; a contact that could thus never be called is refused (422 at contacts[i].to, naming the fix). Errors: 422 validation_failed naming each field (contacts[17].to; in CSV the line counted from 1 with the header as line 1, and the column: contactsCsv[line 3].to); ' +
            'an unknown agentId or phoneNumberId is refused as soon as it is read, before the contacts; 429 while 2 uploads are being processed. ' +
            'POST /api/outbound/jobs/preview shows what a CSV body would give, without creating anything.',
        },
      },
    )
    .post('/preview', ({ request, query, principal }) => readContactsPreview(request, query, d.maxUploadBytes, gate, targetsIn(principal.workspaceId)), {
      permission: 'campaigns:write',
      query: PreviewQuery,
      response: ContactsPreview,
      detail: {
        summary: 'Preview a contacts CSV before creating a job: its header, first rows, row count and what the upload would refuse',
        description:
          'The body is the CSV (Content-Type text/csv), as POST /api/outbound/jobs takes it, read by the same parser and checked by the same rules ' +
          '(RFC 4180 quotes and doubled quotes, CRLF or LF, a UTF-8 byte order mark dropped). Nothing is stored. The file\'s problems are answered ' +
          'with 200 in errors (paths such as contactsCsv[line 3].to, columns[1]); a job created from the same file, columns and defaultCountry ' +
          'is refused for exactly those. Errors: 413 over OUTBOUND_JOB_MAX_BODY_BYTES, 415 for a body that is not text/csv, 422 validation_failed ' +
          'for columns that are not a JSON array of strings, a bad defaultCountry, an agentId that is no outbound agent of the workspace, or a ' +
          'quoted field never closed; 429 while 2 uploads are being processed.',
        requestBody: { required: true, content: { 'text/csv': { schema: { type: 'string' } } } },
      },
    })
    .get('', ({ query, principal }) => service.listJobs(d.db, principal.workspaceId, query), {
      permission: 'campaigns:read',
      query: PaginationQuery,
      response: t.Object({ jobs: t.Array(OutboundJob), nextCursor: NextCursor }),
      detail: { summary: 'List outbound jobs, newest first (paginated: limit, cursor)' },
    })
    .get('/:id', async ({ params, principal }) => ({ job: service.toJobDetail(await service.getJob(d.db, principal.workspaceId, params.id)) }), {
      permission: 'campaigns:read',
      params: IdParams,
      response: Detail,
      detail: { summary: 'Get an outbound job with its counters and progress' },
    })
    .get('/:id/contacts', ({ params, query, principal }) => service.listContacts(d.db, principal.workspaceId, params.id, query, d.now()), {
      permission: 'campaigns:read',
      params: IdParams,
      query: ContactsQuery,
      response: t.Object({ contacts: t.Array(OutboundContact), nextCursor: NextCursor }),
      detail: {
        summary: "A job's contacts in the order given, optionally by status: attempts, last outcome, call ids, next attempt time and the time zones it is read in",
        description:
          "Each contact's calling window is read in its own timezone if it was given one; else in its number's zone (libphonenumber's prefix data: +1 212 America/New_York); " +
          "for a number that may be in several zones (+1 800) or none, in the job's settings.scheduling.timezone if set, else in every zone of the number at once. " +
          'timezone, timezones and timezoneSource say which; nextAttemptAt is when the dispatcher will next call it, inside that window, and nextAttemptLocal the same moment in local time.',
      },
    })
    .post(...action('pause', 'Pause: nothing new is dialled (calls in progress finish)'))
    .post(...action('resume', 'Resume a paused job'))
    .post(...action('cancel', 'Cancel: pending contacts are cancelled, calls in progress finish, the job ends cancelled'))
}
