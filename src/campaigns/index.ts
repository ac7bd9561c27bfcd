// Outbound jobs (campaigns): the API, and the dispatcher that places their calls.
import { Elysia, t } from 'elysia'
import type { Db } from '../db/index.ts'
import { validation } from '../errors.ts'
import type { AuthPlugin } from '../http/auth.ts'
import { IdParams, NextCursor } from '../http/models.ts'
import { PaginationQuery } from '../http/pagination.ts'
import type { SecretBox } from '../secrets/index.ts'
import { ContactsQuery, CreateJobBody, MAX_CONTACTS, OutboundContact, OutboundJob, OutboundJobDetail, Warning } from './campaigns.model.ts'
import * as service from './campaigns.service.ts'
import { createJob } from './create.ts'
import { contactsFromCsv } from './csv.ts'
import type { CampaignEvents } from './events.ts'

export { Dispatcher, type DispatcherDeps } from './dispatcher.ts'
export { noEvents, RecordedEvents, type CampaignEvent, type CampaignEvents } from './events.ts'
export { contactOfCall, outboxEvents } from './webhook-events.ts'
export type { OutboundContactTable, OutboundJobTable } from './campaigns.table.ts'

export interface CampaignsDeps {
  db: Db
  box: SecretBox
  events: CampaignEvents
  /** Wakes the dispatcher (a job was created or resumed); absent when it is not running. */
  poke(): void
}

const CsvQuery = t.Object({
  agentId: t.Optional(t.String()),
  phoneNumberId: t.Optional(t.String()),
  name: t.Optional(t.String()),
  settings: t.Optional(t.String({ description: 'with Content-Type text/csv: the settings object as JSON' })),
})

/** A JSON body, or with text/csv the CSV as the body and the other fields in the query. */
function bodyOf(body: unknown, query: typeof CsvQuery.static): CreateJobBody {
  if (typeof body !== 'string') return body as CreateJobBody
  let settings: unknown
  try {
    settings = query.settings ? JSON.parse(query.settings) : undefined
  } catch {
    throw validation([{ path: 'settings', message: 'must be a JSON object' }])
  }
  const missing = (['agentId', 'phoneNumberId'] as const).filter((k) => !query[k])
  if (missing.length) throw validation(missing.map((k) => ({ path: k, message: 'is required (as a query parameter with a CSV body)' })))
  return { agentId: query.agentId!, phoneNumberId: query.phoneNumberId!, name: query.name, contactsCsv: body, settings: settings as CreateJobBody['settings'] }
}

export function campaignsController(d: CampaignsDeps, auth: AuthPlugin) {
  const Detail = t.Object({ job: OutboundJobDetail })
  const action = (name: 'pause' | 'resume' | 'cancel', summary: string) =>
    [
      `/:id/${name}`,
      async ({ params, principal }: { params: { id: string }; principal: { workspaceId: string } }) => ({ job: await service.act(d, principal.workspaceId, params.id, name) }),
      { permission: 'campaigns:write' as const, params: IdParams, response: Detail, detail: { summary, description: 'Errors: 404, 409 conflict when the job is in a state that does not allow it (see docs/campaigns.md).' } },
    ] as const
  return new Elysia({ prefix: '/api/outbound/jobs', tags: ['Outbound jobs'] })
    .use(auth)
    .post(
      '',
      async ({ body, principal }) => {
        const b = body
        if (b.contacts && b.contactsCsv !== undefined) throw validation([{ path: 'contactsCsv', message: 'give contacts or contactsCsv, not both' }])
        const contacts = b.contactsCsv !== undefined ? contactsFromCsv(b.contactsCsv) : (b.contacts ?? [])
        if (contacts.length > MAX_CONTACTS) throw validation([{ path: 'contacts', message: `at most ${MAX_CONTACTS} contacts per job` }])
        const created = await createJob(d, principal.workspaceId, { ...b, contacts })
        d.poke()
        return { job: service.toJob(created.row, { names: false }), warnings: created.warnings }
      },
      {
        permission: 'campaigns:write',
        // a text/csv body becomes the JSON shape before validation, so errors name the same paths
        transform: (ctx) => {
          if (typeof ctx.body === 'string') ctx.body = bodyOf(ctx.body, ctx.query as typeof CsvQuery.static)
        },
        body: CreateJobBody,
        query: CsvQuery,
        response: t.Object({ job: OutboundJob, warnings: t.Array(Warning) }),
        detail: {
          summary: 'Create an outbound job: call a list of contacts with an agent from a caller-ID number',
          description:
            `Up to ${MAX_CONTACTS} contacts (body limit OUTBOUND_JOB_MAX_BODY_BYTES), as contacts[] or as CSV: a contactsCsv field, or the body ` +
            'itself with Content-Type text/csv (then agentId, phoneNumberId, name and settings (JSON) are query parameters); a `to` column, ' +
            'every other column a dynamic variable. Duplicate numbers are merged (called once, first contact wins) and reported in warnings, ' +
            'as are contacts lacking a variable the agent uses. Numbers on the do-not-call list count as suppressed. Without a future ' +
            'settings.scheduling.startAt the job is in_progress at once. Errors: 422 validation_failed naming each field (contacts[17].to).',
        },
      },
    )
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
    .get('/:id/contacts', ({ params, query, principal }) => service.listContacts(d.db, principal.workspaceId, params.id, query), {
      permission: 'campaigns:read',
      params: IdParams,
      query: ContactsQuery,
      response: t.Object({ contacts: t.Array(OutboundContact), nextCursor: NextCursor }),
      detail: { summary: "A job's contacts in the order given, optionally by status: attempts, last outcome, call ids, next attempt time" },
    })
    .post(...action('pause', 'Pause: nothing new is dialled (calls in progress finish)'))
    .post(...action('resume', 'Resume a paused job'))
    .post(...action('cancel', 'Cancel: pending contacts are cancelled, calls in progress finish, the job ends cancelled'))
}
export { amdGateFactory } from './amd/index.ts'
