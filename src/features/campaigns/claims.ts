// The dispatcher's durable steps, each one transaction: claim a due contact and record its
// attempt (the call row) before anything is dialled; finish an attempt from its call row; give
// back a claim that was never dialled. A kill -9 between any two steps loses nothing.
import type { Db } from '../../platform/db/index.ts'
import { isListed } from '../do-not-call/index.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import type { JobSettings } from './campaigns.model.ts'
import * as repo from './campaigns.repository.ts'
import type { ContactOutcome, OutboundContactRow, OutboundJobRow } from './campaigns.table.ts'
import type { CampaignEvents } from './events.ts'
import { logJobClosed } from './job-log.ts'
import { afterAttempt, windowOpensInAll } from './schedule.ts'
import { callZones } from './zones/index.ts'
import { type CallRow, ledger } from '../calls/index.ts'
import type { Logger } from '../../platform/log.ts'

export interface Claim {
  contact: OutboundContactRow
  callId: string
}

export interface ClaimContext {
  owner: string
  leaseMs: number
  nowMs: number
  /** Filled into the call row of the attempt. */
  agentName: string
  fromNumber: string
}

/** Contacts looked at per claim before giving the event loop back (window or do-not-call skips). */
const SKIPS_PER_CLAIM = 100
/** A contact whose window is not open in all its zones within a week (a daylight-saving change since it was accepted) is looked at again after this. */
const NEVER_OPEN_RECHECK_MS = 86_400_000

export const settingsOf = (job: Pick<OutboundJobRow, 'settings'>) => JSON.parse(job.settings) as JobSettings

/**
 * Claims the next due contact of a running job with a free slot, under a lease, and inserts
 * its attempt's call row (queued) in the same transaction. Contacts outside their calling
 * window (open in every zone of theirs at once) are moved to its opening; listed numbers are
 * suppressed. undefined: nothing to dial now; 'again': only skipped contacts so far, ask again.
 */
export function claimNext(db: Db, jobId: string, c: ClaimContext): Promise<Claim | 'again' | undefined> {
  return db.transaction().execute(async (trx) => {
    const job = await repo.lockJob(trx, jobId)
    if (!job || job.status !== 'in_progress') return undefined
    const settings = settingsOf(job)
    if (job.active >= settings.maxConcurrent) return undefined
    for (let i = 0; i < SKIPS_PER_CLAIM; i++) {
      const contact = await repo.nextDueContact(trx, jobId, c.nowMs)
      if (!contact) return undefined
      const updated_at = nowIso()
      if (await isListed(trx as Db, job.workspace_id, contact.to_number)) {
        await trx.updateTable('outbound_contacts').set({ status: 'suppressed', outcome: 'suppressed', updated_at }).where('id', '=', contact.id).execute()
        await repo.bump(trx, jobId, { pending: -1, suppressed: 1 })
        continue
      }
      const { zones } = callZones(contact.to_number, contact.timezone, settings.scheduling?.timezone)
      const opens = windowOpensInAll(c.nowMs, settings.callingWindow, zones)
      if (opens > c.nowMs) {
        await trx.updateTable('outbound_contacts').set({ next_attempt_ms: Number.isFinite(opens) ? opens : c.nowMs + NEVER_OPEN_RECHECK_MS, updated_at }).where('id', '=', contact.id).execute()
        continue
      }
      const callId = newId('call')
      const callIds = [...(JSON.parse(contact.call_ids) as string[]), callId]
      const claimed = await trx
        .updateTable('outbound_contacts')
        .set({
          status: 'dialing',
          attempts: contact.attempts + 1,
          call_id: callId,
          call_ids: JSON.stringify(callIds),
          lease_owner: c.owner,
          lease_expires_ms: c.nowMs + c.leaseMs,
          updated_at,
        })
        .where('id', '=', contact.id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst()
      if (!claimed) continue
      await ledger.openCall(trx, {
        id: callId,
        workspace_id: job.workspace_id,
        agent_id: job.agent_id,
        agent_name: c.agentName,
        phone_number_id: job.phone_number_id,
        type: 'outbound',
        from_number: c.fromNumber,
        to_number: contact.to_number,
        status: 'queued',
        variables: contact.variables,
        created_at: updated_at,
        outbound_job_id: job.id,
        outbound_contact_id: contact.id,
        node_id: c.owner,
      })
      await repo.bump(trx, jobId, { pending: -1, active: 1 })
      return { contact: claimed, callId }
    }
    return 'again' as const
  })
}

/** What an ended attempt's call row says about the contact. Pure. */
export function attemptOutcome(call: Pick<CallRow, 'outcome' | 'end_reason' | 'answered_at' | 'answered_by'> | undefined): ContactOutcome {
  if (!call) return 'no_answer' // the row was deleted: it may have rung; count the attempt
  if (call.answered_at) return call.answered_by === 'machine' ? 'voicemail' : 'answered'
  switch (call.outcome) {
    case 'busy':
    case 'declined':
      return 'busy'
    case 'no_answer':
    case 'cancelled':
    case 'shutdown':
      return 'no_answer'
    case 'failed':
      // never answered and cut by a crash or a lost node: it may have rung, so it was an attempt
      return ['appliance_restart', 'lease_expired', 'node_lost'].includes(call.end_reason ?? '') ? 'no_answer' : 'failed'
    default:
      return 'failed'
  }
}

/**
 * Closes the attempt of `contactId` whose call is `callId`: the contact is retried, completed or
 * failed by the job's rules, the counters move, and call.completed (and job.completed when it was
 * the last) is emitted, all in one transaction. A second call for the same attempt changes nothing.
 * The job's end, if this closed it, is logged to `log` once committed.
 */
export async function finishAttempt(db: Db, events: CampaignEvents, contactId: string, callId: string, nowMs: number, log?: Logger): Promise<boolean> {
  const done = await db.transaction().execute(async (trx) => {
    const contact = await repo.lockContact(trx, contactId)
    if (!contact || contact.status !== 'dialing' || contact.call_id !== callId) return undefined
    const job = (await repo.findJobById(trx, contact.job_id))!
    const settings = settingsOf(job)
    const call = await trx.selectFrom('calls').select(['outcome', 'answered_at', 'answered_by', 'end_reason']).where('id', '=', callId).executeTakeFirst()
    const outcome = attemptOutcome(call)
    // a cancelled or failed job retries nothing: the contact closes with this attempt's outcome
    const next = job.status === 'cancelled' || job.status === 'failed' ? afterAttempt(outcome, Number.MAX_SAFE_INTEGER, settings, nowMs) : afterAttempt(outcome, contact.attempts, settings, nowMs)
    const at = nowIso()
    await trx
      .updateTable('outbound_contacts')
      .set({
        status: next.status,
        outcome,
        next_attempt_ms: next.status === 'pending' ? next.nextAttemptMs : contact.next_attempt_ms,
        lease_owner: null,
        lease_expires_ms: null,
        updated_at: at,
      })
      .where('id', '=', contactId)
      .execute()
    await repo.bump(trx, job.id, next.status === 'pending' ? { active: -1, pending: 1 } : { active: -1, [outcome]: 1 })
    await events.emit(trx, {
      type: 'call.completed',
      workspaceId: job.workspace_id,
      jobId: job.id,
      callId,
      contact: { id: contact.id, to: contact.to_number, dynamicVariables: JSON.parse(contact.variables), status: next.status, attempts: contact.attempts, lastOutcome: outcome },
      at,
    })
    return { closed: await closeIfDone(trx as Db, events, job.id) }
  })
  if (!done) return false
  logJobClosed(log, done.closed)
  return true
}

/**
 * A job with nothing pending and nothing in flight is completed (a cancelled one gets its
 * completedAt). Returns the job as this left it when it closed it (its status is the one set),
 * for the caller to log once its transaction committed; undefined when it did nothing.
 */
export async function closeIfDone(trx: Db, events: CampaignEvents, jobId: string): Promise<(OutboundJobRow & { status: 'completed' | 'cancelled' }) | undefined> {
  const job = await repo.lockJob(trx, jobId)
  if (!job || job.pending > 0 || job.active > 0 || job.completed_at) return undefined
  if (job.status !== 'in_progress' && job.status !== 'cancelled') return undefined
  const at = nowIso()
  const status = job.status === 'cancelled' ? 'cancelled' : 'completed'
  await repo.setJob(trx, jobId, { status, completed_at: at })
  await events.emit(trx, { type: 'job.completed', workspaceId: job.workspace_id, jobId, status, at })
  return { ...job, status, completed_at: at }
}

/** Gives back a claim whose call never went out (the dialer refused at once): the attempt did not happen. */
export function releaseClaim(db: Db, claim: Claim, retryAtMs: number): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const contact = await repo.lockContact(trx, claim.contact.id)
    if (!contact || contact.status !== 'dialing' || contact.call_id !== claim.callId) return
    const callIds = (JSON.parse(contact.call_ids) as string[]).filter((id) => id !== claim.callId)
    await trx
      .updateTable('outbound_contacts')
      .set({ status: 'pending', attempts: contact.attempts - 1, call_id: callIds.at(-1) ?? null, call_ids: JSON.stringify(callIds), lease_owner: null, lease_expires_ms: null, next_attempt_ms: retryAtMs, updated_at: nowIso() })
      .where('id', '=', contact.id)
      .execute()
    await ledger.withdrawQueuedCall(trx, claim.callId)
    await repo.bump(trx, contact.job_id, { active: -1, pending: 1 })
  })
}
