import { sql, type Updateable } from 'kysely'
import type { Db } from '../../db/index.ts'
import { enqueueWebhookEvent } from '../../webhooks/index.ts'
import type { CallTable } from '../calls.table.ts'

/** The post-call webhook waits this long for the analysis, then goes without it. */
export const ANALYSIS_WAIT_MS = 60_000

/**
 * Writes the end of a call, and in the same transaction what must follow it: the pending
 * analysis and, when the agent has a webhookUrl, the call.completed event in the outbox (held
 * until the analysis completes or ANALYSIS_WAIT_MS passes). A crash cannot separate them.
 */
export async function finaliseCall(db: Db, callId: string, patch: Updateable<CallTable>, now = new Date(), opts: { onlyOpen?: boolean } = {}): Promise<void> {
  await db.transaction().execute(async (trx) => {
    let update = trx.updateTable('calls').set(patch).where('id', '=', callId)
    // two nodes closing a lost node's call: the second changes nothing and emits nothing
    if (opts.onlyOpen) update = update.where('status', '!=', 'ended')
    const call = await update.returning(['workspace_id', 'agent_id']).executeTakeFirst()
    if (!call) return
    const at = now.toISOString()
    await trx
      .insertInto('call_analyses')
      .values({ call_id: callId, workspace_id: call.workspace_id, status: 'pending', run_after: at, created_at: at, attempts: 0, summary: '', is_voicemail: 0, model: '', input_tokens: 0, output_tokens: 0, cost: 0, sentiment: null, error: null, lease_owner: null, lease_expires_at: null, completed_at: null })
      .onConflict((oc) => oc.column('call_id').doNothing())
      .execute()
    if (!call.agent_id) return
    const agent = await trx.selectFrom('agents').select('webhook_url').where('id', '=', call.agent_id).executeTakeFirst()
    if (!agent?.webhook_url) return
    await enqueueWebhookEvent(trx, {
      workspaceId: call.workspace_id,
      url: agent.webhook_url,
      type: 'call.completed',
      callId,
      agentId: call.agent_id,
      holdUntil: new Date(now.getTime() + ANALYSIS_WAIT_MS),
      now,
    })
  })
}

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
    await finaliseCall(db, id, { status: 'ended', outcome: 'failed', end_reason: reason, ended_at: now.toISOString() }, now, { onlyOpen: true })
  }
  return open.length
}
