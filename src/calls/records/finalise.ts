import type { Updateable } from 'kysely'
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
export async function finaliseCall(db: Db, callId: string, patch: Updateable<CallTable>, now = new Date()): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const call = await trx.updateTable('calls').set(patch).where('id', '=', callId).returning(['workspace_id', 'agent_id']).executeTakeFirst()
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
 * Calls a crash left unfinished: nothing can resume them, so they are closed as failed
 * (appliance_restart), and like any ended call get their analysis and post-call webhook.
 */
export async function closeAbandonedCalls(db: Db, now = new Date()): Promise<number> {
  const open = await db.selectFrom('calls').select('id').where('status', '!=', 'ended').execute()
  for (const { id } of open) {
    await finaliseCall(db, id, { status: 'ended', outcome: 'failed', end_reason: 'appliance_restart', ended_at: now.toISOString() }, now)
  }
  return open.length
}
