// The webhook outbox in the database: enqueueing, claiming with a lease, and recording attempts.
import { sql } from 'kysely'
import type { Db } from '../../platform/db/index.ts'
import { claimRows, NO_LEASE } from '../../platform/jobs/index.ts'
import { newId } from '../../platform/ids.ts'
import type { DeliveryErrorCode } from './delivery-error.ts'
import type { DeliveryRow } from './webhooks.table.ts'

export interface WebhookEvent {
  workspaceId: string
  url: string
  /** e.g. call.completed, job.started */
  type: string
  /** The event's data object; omit it to have the worker render it later (see holdUntil). */
  data?: unknown
  callId?: string | null
  agentId?: string | null
  /** Not sent before this time unless released earlier (a call's record waiting for its analysis). */
  holdUntil?: Date
  now?: Date
}

/** The body every attempt sends: `{type, timestamp, data}`. */
export const eventBody = (type: string, timestamp: string, data: unknown): string => JSON.stringify({ type, timestamp, data })

/**
 * Adds an event to the outbox. Pass the transaction that makes the event true (the call's end,
 * a job's start) so the event exists exactly when that change does. Returns the webhook-id.
 */
export async function enqueueWebhookEvent(trx: Db, e: WebhookEvent): Promise<string> {
  const now = e.now ?? new Date()
  const id = newId('msg')
  await trx
    .insertInto('webhook_deliveries')
    .values({
      id,
      workspace_id: e.workspaceId,
      call_id: e.callId ?? null,
      agent_id: e.agentId ?? null,
      event_type: e.type,
      url: e.url,
      payload: e.data === undefined ? null : eventBody(e.type, now.toISOString(), e.data),
      status: 'pending',
      next_attempt_at: (e.holdUntil ?? now).toISOString(),
      ...NO_LEASE,
      last_status_code: null,
      last_error: null,
      created_at: now.toISOString(),
      delivered_at: null,
    })
    .execute()
  return id
}

/** The call's held events become due now (its analysis finished). */
export const releaseCallEvents = (trx: Db, callId: string, now: Date) =>
  trx
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now.toISOString() })
    .where('call_id', '=', callId)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .where('next_attempt_at', '>', now.toISOString())
    .execute()

/** Claims up to `limit` due deliveries for `owner` until the lease expires. One statement. */
export const claimDue = (db: Db, owner: string, now: Date, leaseMs: number, limit: number): Promise<DeliveryRow[]> =>
  claimRows<DeliveryRow>(db, {
    table: 'webhook_deliveries', key: 'id', orderBy: 'next_attempt_at', owner, now, leaseMs, limit,
    due: sql`status = 'pending' AND next_attempt_at <= ${now.toISOString()}`,
  })

export const storePayload = (db: Db, id: string, owner: string, payload: string) =>
  db.updateTable('webhook_deliveries').set({ payload }).where('id', '=', id).where('lease_owner', '=', owner).execute()

export interface AttemptResult {
  statusCode: number | null
  latencyMs: number
  /** The coarse code, null on success. */
  error: DeliveryErrorCode | null
  /** The network error text, for admins. */
  errorDetail?: string | null
  attemptedAt: Date
  /** The delivery's state after this attempt. */
  next: { status: 'delivered' | 'gone' | 'failed' } | { status: 'pending'; at: Date }
}

/** Records one attempt and releases the lease; false when the lease was lost meanwhile. */
export async function recordAttempt(db: Db, row: DeliveryRow, owner: string, r: AttemptResult): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: r.next.status,
        attempts: sql`attempts + 1`,
        next_attempt_at: r.next.status === 'pending' ? r.next.at.toISOString() : r.attemptedAt.toISOString(),
        ...NO_LEASE,
        last_status_code: r.statusCode,
        last_error: r.error,
        last_error_detail: r.errorDetail ?? null,
        delivered_at: r.next.status === 'delivered' ? r.attemptedAt.toISOString() : null,
      })
      .where('id', '=', row.id)
      .where('lease_owner', '=', owner)
      .executeTakeFirst()
    if (updated.numUpdatedRows === 0n) return false
    await trx
      .insertInto('webhook_attempts')
      .values({ delivery_id: row.id, attempted_at: r.attemptedAt.toISOString(), status_code: r.statusCode, latency_ms: r.latencyMs, error: r.error, error_detail: r.errorDetail ?? null })
      .execute()
    return true
  })
}

/** A receiver answered 410: the agent stops sending to that URL (unless it was changed meanwhile). */
export const disableAgentWebhook = (db: Db, agentId: string, url: string) =>
  db.updateTable('agents').set({ webhook_url: '' }).where('id', '=', agentId).where('webhook_url', '=', url).execute()
