import type { Insertable, Updateable } from 'kysely'
import type { Db } from '../db/index.ts'
import { keysetPage } from '../db/index.ts'
import type { CallsQuery } from './calls.model.ts'
import type { CallTable } from './calls.table.ts'

export const insertCall = (db: Db, row: Insertable<CallTable>) => db.insertInto('calls').values(row).returningAll().executeTakeFirstOrThrow()

export const updateCall = (db: Db, id: string, patch: Updateable<CallTable>) =>
  db.updateTable('calls').set(patch).where('id', '=', id).returningAll().executeTakeFirst()

export const findCall = (db: Db, workspaceId: string, id: string) =>
  db.selectFrom('calls').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst()

export function listCalls(db: Db, workspaceId: string, q: CallsQuery) {
  let qb = db.selectFrom('calls').selectAll().where('workspace_id', '=', workspaceId)
  if (q.agentId) qb = qb.where('agent_id', '=', q.agentId)
  if (q.type) qb = qb.where('type', '=', q.type)
  if (q.status) qb = qb.where('status', '=', q.status)
  return keysetPage(qb, 'created_at', 'id', q).execute()
}

/** Calls a crash left unfinished: nothing can resume them, so they are closed as failed. */
export const closeAbandonedCalls = (db: Db, endedAt: string) =>
  db
    .updateTable('calls')
    .set({ status: 'ended', outcome: 'failed', end_reason: 'appliance_restart', ended_at: endedAt })
    .where('status', '!=', 'ended')
    .executeTakeFirst()
