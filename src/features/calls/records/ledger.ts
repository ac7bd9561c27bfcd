// The call ledger: the only code that writes `calls` rows (test/unit/call-ledger.test.ts holds
// every other file to that). A row is opened queued (an outbound call not yet dialled) or
// ringing (an inbound call), moves to ringing and in_progress, and ends once, through
// finaliseCall, with what must follow an end. After the end only the record's attachments
// change: where its recording is, its cost once analysed; then it is deleted.
import { type Insertable, sql, type Updateable } from 'kysely'
import type { Db } from '../../../platform/db/index.ts'
import { nowIso } from '../../../platform/ids.ts'
import { enqueueWebhookEvent } from '../../webhooks/index.ts'
import type { AnsweredBy, CallOutcome, CallRow, CallTable } from '../calls.table.ts'
import type { CallCost } from '../calls.model.ts'

/** The post-call webhook waits this long for the analysis, then goes without it. */
export const ANALYSIS_WAIT_MS = 60_000

/** end_reason is free text for operators, kept this short (an error message can be long). */
const END_REASON_MAX = 200

/** A new call row: an inbound call is ringing when recorded, an outbound one is queued until dialled. */
export type NewCall = Insertable<CallTable> & { status: 'queued' | 'ringing' }

/** How a call ended: its outcome and time, with what the call produced (transcript, metrics, cost, recording). */
export type CallEnd = Omit<Updateable<CallTable>, 'status' | 'outcome' | 'ended_at'> & { status: 'ended'; outcome: CallOutcome; ended_at: string }

/** Records a call: inbound once its INVITE is taken, outbound before it is dialled (a campaign's in its claim's transaction). */
export const openCall = (db: Db, row: NewCall): Promise<CallRow> => db.insertInto('calls').values(row).returningAll().executeTakeFirstOrThrow()

/** A placed call is ringing, unless it was answered or ended meanwhile (then only the fields are set). */
export const markRinging = (db: Db, id: string, fields: Pick<Updateable<CallTable>, 'sip_call_id' | 'started_at' | 'variables'>) =>
  db
    .updateTable('calls')
    .set({ ...fields, status: sql<CallTable['status']>`CASE WHEN status = 'queued' THEN 'ringing' ELSE status END` })
    .where('id', '=', id)
    .execute()

/** The call was answered: it is in progress from now. */
export const markAnswered = (db: Db, id: string, at = nowIso()) =>
  db.updateTable('calls').set({ status: 'in_progress', answered_at: at }).where('id', '=', id).execute()

/** Answering-machine detection decided who picked up an outbound call. */
export const recordAnsweredBy = (db: Db, id: string, answeredBy: AnsweredBy) =>
  db.updateTable('calls').set({ answered_by: answeredBy }).where('id', '=', id).execute()

/**
 * Writes the end of a call, and in the same transaction what must follow it: the pending
 * analysis and, when the agent has a webhookUrl, the call.completed event in the outbox (held
 * until the analysis completes or ANALYSIS_WAIT_MS passes). A crash cannot separate them.
 * `onlyOpen`: a call already ended is left as it is, and nothing follows.
 */
export async function finaliseCall(db: Db, callId: string, end: CallEnd, now = new Date(), opts: { onlyOpen?: boolean } = {}): Promise<void> {
  await db.transaction().execute(async (trx) => {
    let update = trx.updateTable('calls').set(end).where('id', '=', callId)
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

/** Ends a call that could not run (not placed, its node or lease lost, a crash) as failed, through finaliseCall. */
export const failCall = (db: Db, callId: string, reason: string, opts: { now?: Date; onlyOpen?: boolean } = {}) => {
  const now = opts.now ?? new Date()
  return finaliseCall(db, callId, { status: 'ended', outcome: 'failed', end_reason: reason.slice(0, END_REASON_MAX), ended_at: now.toISOString() }, now, { onlyOpen: opts.onlyOpen })
}

/** The call's cost once its analysis is priced in (withAnalysisCost), written with the analysis result. */
export const recordAnalysisCost = (db: Db, callId: string, cost: CallCost) =>
  db.updateTable('calls').set({ cost: JSON.stringify(cost) }).where('id', '=', callId).execute()

/**
 * The call's recording moved (uploaded to object storage) from `from` to `to`, if the record
 * still points at `from` (null: the end was never written, a crash). False when it no longer
 * does: the recording or the record was deleted meanwhile.
 */
export async function moveRecording(db: Db, callId: string, from: string | null, to: string): Promise<boolean> {
  const res = await db
    .updateTable('calls')
    .set({ recording_path: to })
    .where('id', '=', callId)
    .where((eb) => (from === null ? eb('recording_path', 'is', null) : eb('recording_path', '=', from)))
    .executeTakeFirst()
  return res.numUpdatedRows > 0n
}

/** The call's recording was removed (by request or by retention); the record stays, without it. */
export const forgetRecording = (db: Db, callId: string) => db.updateTable('calls').set({ recording_path: null }).where('id', '=', callId).execute()

/** A campaign attempt that was never dialled is withdrawn with its claim (in the claim's transaction). */
export const withdrawQueuedCall = (db: Db, callId: string) => db.deleteFrom('calls').where('id', '=', callId).where('status', '=', 'queued').execute()

/** Deletes an ended call of the workspace; analysis, evaluations, labels and webhook deliveries go with it (foreign keys cascade). */
export const deleteEndedCall = (db: Db, workspaceId: string, callId: string) =>
  db.deleteFrom('calls').where('workspace_id', '=', workspaceId).where('id', '=', callId).where('status', '=', 'ended').executeTakeFirst()

/** Deletes call records past their retention (what hangs on them cascades, as above). */
export const deleteExpiredCalls = (db: Db, ids: string[]) => db.deleteFrom('calls').where('id', 'in', ids).execute()
