import { sql } from 'kysely'
import type { Db } from '../../../platform/db/index.ts'
import { failCall } from './ledger.ts'

/**
 * Calls a crash left unfinished: nothing can resume them, so they are closed as failed, and like
 * any ended call get their analysis and post-call webhook. On SQLite (no `node`) that is every
 * open call (appliance_restart). On PostgreSQL only calls no live node runs: calls of nodes whose
 * presence lease expired (node_lost) and, at start (`ownToo`), this node's own from an earlier run
 * and calls without a node.
 */
export async function closeAbandonedCalls(db: Db, now = new Date(), node?: { id: string; ownToo: boolean }): Promise<number> {
  let q = db.selectFrom('calls').select(['id', 'node_id']).where('status', '!=', 'ended')
  if (node) {
    const at = now.toISOString()
    q = q.where((eb) =>
      eb.or([
        ...(node.ownToo ? [eb('node_id', 'is', null), eb('node_id', '=', node.id)] : []),
        eb.and([
          eb('node_id', '!=', node.id),
          eb.not(eb.exists(eb.selectFrom('job_leases').select('name').where('job_leases.name', '=', sql<string>`${'node:'} || calls.node_id`).where('job_leases.expires_at', '>', at))),
        ]),
      ]),
    )
  }
  const open = await q.execute()
  for (const { id, node_id } of open) {
    const reason = node && node_id && node_id !== node.id ? 'node_lost' : 'appliance_restart'
    await failCall(db, id, reason, { now, onlyOpen: true })
  }
  return open.length
}
