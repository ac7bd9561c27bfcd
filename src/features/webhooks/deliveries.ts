import { type Db, finishPage, keysetPage, pageLimit } from '../../platform/db/index.ts'
import { conflict, notFound } from '../../platform/errors.ts'
import type { DeliveriesQuery, Delivery } from './webhooks.model.ts'
import type { AttemptRow, DeliveryRow } from './webhooks.table.ts'

/** `detail`: the caller is an admin, who also reads what exactly went wrong (lastErrorDetail, errorDetail). */
function toDelivery(r: DeliveryRow, attempts: AttemptRow[], detail: boolean): Delivery {
  return {
    id: r.id,
    type: r.event_type,
    callId: r.call_id,
    agentId: r.agent_id,
    url: r.url,
    status: r.status,
    attemptCount: r.attempts,
    nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    ...(detail ? { lastErrorDetail: r.last_error_detail } : {}),
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
    attempts: attempts.map((a) => ({
      attemptedAt: a.attempted_at,
      statusCode: a.status_code,
      latencyMs: a.latency_ms,
      error: a.error,
      ...(detail ? { errorDetail: a.error_detail } : {}),
    })),
  }
}

async function withAttempts(db: Db, rows: DeliveryRow[], detail: boolean): Promise<Delivery[]> {
  if (!rows.length) return []
  const attempts = await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', rows.map((r) => r.id)).orderBy('id').execute()
  return rows.map((r) => toDelivery(r, attempts.filter((a) => a.delivery_id === r.id), detail))
}

export async function listDeliveries(db: Db, workspaceId: string, q: DeliveriesQuery, detail = false) {
  let qb = db.selectFrom('webhook_deliveries').selectAll().where('workspace_id', '=', workspaceId)
  if (q.callId) qb = qb.where('call_id', '=', q.callId)
  if (q.status) qb = qb.where('status', '=', q.status)
  const rows = await keysetPage(qb, 'created_at', 'id', q).execute()
  const page = finishPage(rows, pageLimit(q), (r) => [r.created_at, r.id])
  return { deliveries: await withAttempts(db, page.items, detail), nextCursor: page.nextCursor }
}

/** Sends a delivery again now (any status), with the same webhook-id; 409 while it is being sent. */
export async function retryDelivery(db: Db, workspaceId: string, id: string, now = new Date(), detail = false): Promise<Delivery> {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound('webhook delivery')
  const at = now.toISOString()
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: at, delivered_at: null })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', at)]))
    .executeTakeFirst()
  if (res.numUpdatedRows === 0n) throw conflict('the delivery is being sent right now; look again in a few seconds')
  const fresh = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  return (await withAttempts(db, [fresh], detail))[0]!
}
