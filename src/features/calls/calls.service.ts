import { snapshotAgent, type AgentSnapshot } from '../agents/index.ts'
import type { Config } from '../../platform/config/index.ts'
import { type Db, finishPage, pageLimit } from '../../platform/db/index.ts'
import { AppError, notFound, validation, type FieldIssue } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import { getNumberRoute, strictE164, type NumberRoute } from '../numbers/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import type { Call, CallCost, CallMetrics, CallsQuery, PlaceCallBody, TranscriptItem } from './calls.model.ts'
import * as repo from './calls.repository.ts'
import * as ledger from './records/ledger.ts'
import { storedMetrics } from './records/stored-metrics.ts'
import type { CallRow } from './calls.table.ts'
import type { StorageSettings } from '../recordings/index.ts'

/** What the API needs from the running telephony side to place a call. */
export interface Dialer {
  /** Starts dialling a queued call; the call row tells how it went. Throws AppError 503 when it cannot start. */
  dial(call: OutboundRequest): Promise<void>
}

export interface OutboundRequest {
  callId: string
  route: NumberRoute
  agent: AgentSnapshot
  to: string
  variables: Record<string, string>
  /** Still ringing after this long: cancelled (outcome cancelled). Default: until the callee's side gives up. */
  ringTimeoutMs?: number
  /** Runs once answered, before the agent speaks, with the callee's audio (see AnswerGate). */
  answerGate?: AnswerGate
  /** Called once the call has ended and its row is final. */
  onEnded?: () => void
}

/**
 * A hook into the first moments of an answered outbound call (answering-machine detection):
 * it hears the callee's audio and may play audio, then says whether the agent takes the call
 * (`converse`) or the call ends (`hangup`).
 */
export type AnswerGate = (tap: AnswerTap) => Promise<'converse' | 'hangup'>

export interface AnswerTap {
  /** Receives the callee's audio (16 kHz frames) until the gate resolves; undefined stops it. */
  listen(sink: ((frame: Int16Array) => void) | undefined): void
  /** Plays 16 kHz audio to the callee; resolves when it has been sent. */
  play(pcm16k: Int16Array): Promise<void>
  /** True once the callee hung up. */
  readonly ended: boolean
}

export interface CallsDeps {
  db: Db
  box: SecretBox
  config: Pick<Config, 'NODE_ID'> & StorageSettings
  /** Where clients reach the API (recording URLs point there): publicHttpBase (net/public-url.ts). */
  baseUrl: string
  /** Undefined when the SIP side is not running (then placing a call is 503). */
  dialer?: Dialer
}

const json = <T>(text: string, fallback: T): T => {
  try {
    return JSON.parse(text) as T
  } catch {
    return fallback
  }
}

/** A row as the API shows it; `names` (repo.namesFor) gives what its ids name. */
export function toCall(r: CallRow, baseUrl: string, names: repo.CallNames): Call {
  const metrics = json<Partial<CallMetrics>>(r.metrics, {})
  const cost = json<Partial<CallCost>>(r.cost, {})
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    agentId: r.agent_id,
    agentName: r.agent_name,
    agentDeleted: r.agent_id !== null && !names.agents.has(r.agent_id),
    phoneNumberId: r.phone_number_id,
    phoneNumberLabel: r.phone_number_id ? (names.numberLabels.get(r.phone_number_id) ?? null) : null,
    type: r.type,
    ...(r.test_draft === 'true' && { testDraft: true }),
    from: r.from_number,
    to: r.to_number,
    memberEmail: r.type === 'web' || r.type === 'stream' ? (names.memberEmails.get(r.from_number) ?? null) : null,
    status: r.status,
    outcome: r.outcome,
    endReason: r.end_reason,
    dynamicVariables: json<Record<string, string>>(r.variables, {}),
    startedAt: r.started_at,
    answeredAt: r.answered_at,
    endedAt: r.ended_at,
    duration: r.duration_sec,
    transcript: json<TranscriptItem[]>(r.transcript, []),
    toolCalls: json<Call['toolCalls']>(r.tool_calls, []),
    metrics: 'model' in metrics ? storedMetrics(metrics) : null,
    cost: 'total' in cost ? (cost as CallCost) : null,
    media: r.media ? json<Call['media']>(r.media, null) : null,
    recordingUrl: r.recording_path ? `${baseUrl}/api/calls/${r.id}/recording` : null,
    outboundJobId: r.outbound_job_id,
    outboundContactId: r.outbound_contact_id,
    createdAt: r.created_at,
  }
}


export async function getCall(deps: CallsDeps, workspaceId: string, id: string): Promise<Call> {
  const row = await repo.findCall(deps.db, workspaceId, id)
  if (!row) throw notFound('call')
  return toCall(row, deps.baseUrl, await repo.namesFor(deps.db, [row]))
}

export async function findCallRow(db: Db, workspaceId: string, id: string): Promise<CallRow> {
  const row = await repo.findCall(db, workspaceId, id)
  if (!row) throw notFound('call')
  return row
}

export async function listCalls(deps: CallsDeps, workspaceId: string, q: CallsQuery) {
  const rows = await repo.listCalls(deps.db, workspaceId, q)
  const page = finishPage(rows, pageLimit(q), (r) => [r.created_at, r.id])
  const names = await repo.namesFor(deps.db, page.items)
  return { calls: page.items.map((r) => toCall(r, deps.baseUrl, names)), nextCursor: page.nextCursor }
}

/**
 * Places one outbound call from a number of the workspace with an agent (the number's outbound
 * agent unless one is named). The call is created queued and dialled at once; its status and
 * outcome then follow the call.
 */
export async function placeCall(deps: CallsDeps, workspaceId: string, body: PlaceCallBody): Promise<Call> {
  const issues: FieldIssue[] = []
  const to = strictE164(body.to)
  if (!to) issues.push({ path: 'to', message: 'must be a valid E.164 number such as +14155550123' })
  // A number of another workspace is treated exactly as a missing one, down to the agent check.
  const found = await getNumberRoute(deps.db, deps.box, body.phoneNumberId)
  const route = found?.workspaceId === workspaceId ? found : undefined
  if (!route) issues.push({ path: 'phoneNumberId', message: 'no such phone number in this workspace' })
  else if (!route.sip) issues.push({ path: 'phoneNumberId', message: 'the number has no sipTerminationUri to place calls through' })
  const agentId = body.agentId ?? route?.outboundAgentId ?? undefined
  let agent: AgentSnapshot | undefined
  if (!agentId) {
    if (route) issues.push({ path: 'agentId', message: 'the number has no outbound agent; name one' })
  } else {
    agent = await snapshotAgent(deps.db, agentId, { workspaceId }).catch(() => undefined)
    if (!agent) issues.push({ path: 'agentId', message: 'no such agent in this workspace' })
    else if (agent.agentType !== 'outbound') issues.push({ path: 'agentId', message: `agent ${agent.agentId} is an inbound agent; calls are placed by outbound agents` })
  }
  if (issues.length) throw validation(issues)
  if (!deps.dialer) throw new AppError(503, 'not_ready', 'the SIP user agent is not running', undefined, { 'Retry-After': '5' })
  const variables = body.dynamicVariables ?? {}
  const row = await ledger.openCall(deps.db, {
    id: newId('call'),
    workspace_id: workspaceId,
    agent_id: agent!.agentId,
    agent_name: agent!.name,
    phone_number_id: route!.id,
    type: 'outbound',
    from_number: route!.e164,
    to_number: to!,
    status: 'queued',
    variables: JSON.stringify(variables),
    created_at: nowIso(),
    node_id: deps.config.NODE_ID || null,
  })
  try {
    await deps.dialer.dial({ callId: row.id, route: route!, agent: agent!, to: to!, variables })
  } catch (err) {
    await ledger.failCall(deps.db, row.id, (err as Error).message)
    throw err
  }
  return getCall(deps, workspaceId, row.id)
}
