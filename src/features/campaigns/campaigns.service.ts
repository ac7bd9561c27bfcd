// Reading jobs and contacts as the API shows them, and the pause / resume / cancel actions.
import { type Db, decodeCursor, finishPage } from '../../platform/db/index.ts'
import { conflict, notFound, validation } from '../../platform/errors.ts'
import { nowIso } from '../../platform/ids.ts'
import type { JobSettings } from './campaigns.model.ts'
import * as repo from './campaigns.repository.ts'
import type { JobStatus, OutboundContactRow, OutboundJobRow } from './campaigns.table.ts'
import { closeIfDone } from './claims.ts'
import type { CampaignEvents } from './events.ts'
import { logJobChange } from './job-log.ts'
import type { Logger } from '../../platform/log.ts'
import { localIso, windowOpensInAll } from './schedule.ts'
import { callZones } from './zones/index.ts'

type JobRow = OutboundJobRow & { agent_name: string | null; phone_e164: string | null }

export function toJob(r: JobRow, opts: { names: boolean }) {
  const job = {
    id: r.id,
    name: r.name,
    agentId: r.agent_id,
    ...(opts.names ? { agentName: r.agent_name ?? '' } : {}),
    phoneNumberId: r.phone_number_id,
    status: r.status,
    totalContacts: r.total_contacts,
    completedContacts: r.answered + r.voicemail,
    failedContacts: r.no_answer + r.busy + r.failed,
    settings: JSON.parse(r.settings) as JobSettings,
    createdAt: r.created_at,
    startedAt: r.started_at,
    ...(r.completed_at ? { completedAt: r.completed_at } : {}),
  }
  return job
}

export function toJobDetail(r: JobRow) {
  return {
    ...toJob(r, { names: true }),
    phoneNumber: r.phone_e164 ?? '',
    pendingContacts: r.pending,
    activeContacts: r.active,
    suppressedContacts: r.suppressed,
    cancelledContacts: r.cancelled,
    progress: { answered: r.answered, noAnswer: r.no_answer, busy: r.busy, voicemail: r.voicemail, failed: r.failed },
  }
}

/**
 * A contact as the API shows it, in a job of `settings`, at `nowMs`: the zones its window is read
 * in, and its next attempt as the dispatcher will place it (at the window's opening in all of them).
 */
export function toContact(c: OutboundContactRow, settings: JobSettings, nowMs: number) {
  const { zones, source } = callZones(c.to_number, c.timezone, settings.scheduling?.timezone)
  const due = c.status === 'pending' && c.next_attempt_ms < Number.MAX_SAFE_INTEGER ? windowOpensInAll(Math.max(c.next_attempt_ms, nowMs), settings.callingWindow, zones) : Infinity
  const next = Number.isFinite(due) ? due : undefined
  return {
    id: c.id,
    to: c.to_number,
    dynamicVariables: JSON.parse(c.variables) as Record<string, string>,
    status: c.status,
    attempts: c.attempts,
    lastOutcome: c.outcome,
    callIds: JSON.parse(c.call_ids) as string[],
    nextAttemptAt: next === undefined ? null : new Date(next).toISOString(),
    nextAttemptLocal: next === undefined ? null : localIso(next, zones),
    timezone: zones.length === 1 ? zones[0]! : null,
    timezones: [...zones],
    timezoneSource: source,
  }
}

export async function getJob(db: Db, workspaceId: string, id: string) {
  const row = await repo.findJob(db, workspaceId, id)
  if (!row) throw notFound('outbound job')
  return row
}

export async function listJobs(db: Db, workspaceId: string, q: { limit?: number; cursor?: string }) {
  const limit = q.limit ?? 50
  const rows = await repo.listJobs(db, workspaceId, limit, decodeCursor(q.cursor))
  const page = finishPage(rows, limit, (r) => [r.created_at, r.id])
  return { jobs: page.items.map((r) => toJob(r, { names: true })), nextCursor: page.nextCursor }
}

export async function listContacts(db: Db, workspaceId: string, jobId: string, q: { status?: string; limit?: number; cursor?: string }, nowMs: number) {
  const settings = JSON.parse((await getJob(db, workspaceId, jobId)).settings) as JobSettings
  const after = q.cursor === undefined ? -1 : Number(q.cursor)
  if (!Number.isInteger(after) || after < -1) throw validation([{ path: 'cursor', message: 'not a cursor from this API' }])
  const limit = q.limit ?? 100
  const rows = await repo.listContacts(db, jobId, { status: q.status, limit, after })
  const items = rows.slice(0, limit)
  return { contacts: items.map((c) => toContact(c, settings, nowMs)), nextCursor: rows.length > limit ? String(items.at(-1)!.position) : null }
}

export interface ActionDeps {
  db: Db
  events: CampaignEvents
  poke(): void
  /** Where each change is logged, once committed. */
  log?: Logger
}

const FROM: Record<'pause' | 'resume' | 'cancel', JobStatus[]> = {
  pause: ['scheduled', 'in_progress'],
  resume: ['paused'],
  cancel: ['scheduled', 'in_progress', 'paused'],
}

/** pause: nothing new is dialled; resume: back to scheduled or in_progress; cancel: pending contacts are cancelled. */
export async function act(d: ActionDeps, workspaceId: string, id: string, action: 'pause' | 'resume' | 'cancel') {
  const status = await d.db.transaction().execute(async (trx) => {
    const job = await repo.findJob(trx, workspaceId, id)
    if (!job) throw notFound('outbound job')
    if (!FROM[action].includes(job.status)) throw conflict(`cannot ${action} a job that is ${job.status}`, { status: job.status })
    const to: JobStatus = action === 'pause' ? 'paused' : action === 'cancel' ? 'cancelled' : job.started_at ? 'in_progress' : 'scheduled'
    await repo.setJob(trx, id, { status: to })
    if (action === 'cancel') {
      const n = await repo.cancelPending(trx, id, nowIso())
      await repo.bump(trx, id, { pending: -n, cancelled: n })
      await closeIfDone(trx as Db, d.events, id)
    }
    return to
  })
  if (action === 'resume') d.poke()
  const row = await getJob(d.db, workspaceId, id)
  // counters as read after the commit; a cancel with no call in progress ended the job at once
  logJobChange(d.log, row, PAST[action], status, action === 'cancel' ? { ended: row.completed_at !== null } : {})
  return toJobDetail(row)
}

const PAST = { pause: 'paused', resume: 'resumed', cancel: 'cancelled' } as const
