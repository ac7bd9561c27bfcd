// A supervisor's action on a live call: checked against the call row, carried out by the call
// where it runs on this node, then audited with the call record and sent as call.action in one
// transaction.
import type { Db } from '../../../platform/db/index.ts'
import { conflict, invalidField } from '../../../platform/errors.ts'
import { callTargetProblem } from '../../../platform/net/call-target.ts'
import { newId } from '../../../platform/ids.ts'
import type { Principal } from '../../api-keys/index.ts'
import { enqueueWebhookEvent } from '../../webhooks/index.ts'
import type { ActionResult } from '../conversation/index.ts'
import type { CallAction } from '../runtime/live-call.ts'
import { findCallRow } from '../calls.service.ts'
import { type ActionBody, type CallActionRecord, NEEDS } from './actions.model.ts'
import * as repo from './actions.repository.ts'
import type { CallActionTable } from './actions.table.ts'

/** The calls up on this node (the call runtime). */
export interface LiveCalls {
  liveCall(callId: string): { act(action: CallAction): Promise<ActionResult> } | undefined
}

export interface ActionDeps {
  db: Db
  /** This node's id (calls.node_id of the calls it carries). */
  nodeId: string
  /** Undefined while the call runtime is not running. */
  calls(): LiveCalls | undefined
  now?: () => Date
}

/** The body as one action: words for say and note, a target for transfer, nothing else. */
export function actionOf(body: ActionBody): CallAction {
  const needs = NEEDS[body.type]
  for (const field of ['text', 'target'] as const) {
    if (needs === field && !body[field]?.trim()) throw invalidField(field, `${body.type} needs ${field}`)
    if (needs !== field && body[field] !== undefined) throw invalidField(field, `${body.type} takes no ${field}`)
  }
  if (body.type === 'say' || body.type === 'note') return { type: body.type, text: body.text!.trim() }
  if (body.type === 'transfer') {
    const target = body.target!.trim()
    const problem = callTargetProblem(target)
    if (problem) throw invalidField('target', problem)
    return { type: 'transfer', target }
  }
  return { type: body.type }
}

export async function actOnCall(d: ActionDeps, principal: Principal, callId: string, body: ActionBody): Promise<CallActionRecord> {
  const action = actionOf(body)
  const row = await findCallRow(d.db, principal.workspaceId, callId)
  if (row.status === 'ended') throw conflict('the call has ended', { status: row.status })
  if (row.status === 'queued') throw conflict('the call has not been dialled yet', { status: row.status })
  const live = d.calls()?.liveCall(callId)
  if (!live) {
    // actions are carried out by the node carrying the call; no route between nodes yet (docs/live-calls.md)
    if (row.node_id && row.node_id !== d.nodeId) throw conflict(`the call is carried by node ${row.node_id}; send the action to that node`, { nodeId: row.node_id })
    throw conflict('the call is not live on this node', { nodeId: row.node_id })
  }
  const askedAt = (d.now?.() ?? new Date()).toISOString()
  const result = await live.act(action).catch((err: Error): ActionResult => ({ ok: false, refused: `the call could not carry it out: ${err.message}` }))
  const audit: CallActionTable = {
    id: newId('act'),
    call_id: callId,
    workspace_id: principal.workspaceId,
    type: action.type,
    text: 'text' in action ? action.text : null,
    target: 'target' in action ? action.target : null,
    actor_key_id: principal.keyId,
    actor_user_id: principal.userId ?? null,
    result: result.ok ? 'done' : 'refused',
    error: result.ok ? null : result.refused,
    created_at: askedAt,
  }
  const record = toRecord(audit)
  await d.db.transaction().execute(async (trx) => {
    await repo.insertAction(trx, audit)
    const agent = row.agent_id ? await trx.selectFrom('agents').select('webhook_url').where('id', '=', row.agent_id).executeTakeFirst() : undefined
    if (!agent?.webhook_url) return
    await enqueueWebhookEvent(trx, { workspaceId: row.workspace_id, url: agent.webhook_url, type: 'call.action', callId, agentId: row.agent_id, data: { callId, action: record } })
  })
  if (!result.ok) throw conflict(result.refused, { action: record })
  return record
}

export async function listCallActions(db: Db, workspaceId: string, callId: string): Promise<CallActionRecord[]> {
  await findCallRow(db, workspaceId, callId)
  return (await repo.listActions(db, workspaceId, callId)).map(toRecord)
}

function toRecord(r: CallActionTable): CallActionRecord {
  return {
    id: r.id,
    callId: r.call_id,
    type: r.type,
    text: r.text,
    target: r.target,
    actor: { apiKeyId: r.actor_key_id, userId: r.actor_user_id },
    result: r.result,
    error: r.error,
    createdAt: r.created_at,
  }
}
