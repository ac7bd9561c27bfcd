import type { Db } from '../../../platform/db/index.ts'
import { conflict, notFound } from '../../../platform/errors.ts'
import { findCall } from '../calls.repository.ts'
import { toAnalysis } from './export-document.ts'
import type { Analysis } from './records.model.ts'

/** Makes the call's analysis pending again; a run in flight loses its lease and its result is dropped. */
export async function rerunAnalysis(db: Db, workspaceId: string, callId: string, now = new Date()): Promise<Analysis> {
  const call = await findCall(db, workspaceId, callId)
  if (!call) throw notFound('call')
  if (call.status !== 'ended') throw conflict(`the call is ${call.status}; wait until it has ended`, { status: call.status })
  const at = now.toISOString()
  const reset = { status: 'pending' as const, run_after: at, attempts: 0, error: null, lease_owner: null, lease_expires_at: null }
  await db
    .insertInto('call_analyses')
    .values({ call_id: callId, workspace_id: workspaceId, created_at: at, summary: '', is_voicemail: 0, model: '', input_tokens: 0, output_tokens: 0, cost: 0, sentiment: null, completed_at: null, ...reset })
    .onConflict((oc) => oc.column('call_id').doUpdateSet(reset))
    .execute()
  const row = await db.selectFrom('call_analyses').selectAll().where('call_id', '=', callId).executeTakeFirstOrThrow()
  return toAnalysis(call, row)
}
