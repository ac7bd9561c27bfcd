import type { Db } from '../../platform/db/index.ts'
import { keysetPage } from '../../platform/db/index.ts'
import type { CallFilterValues, CallsQuery } from './calls.model.ts'
import type { CallRow } from './calls.table.ts'

export const findCall = (db: Db, workspaceId: string, id: string) =>
  db.selectFrom('calls').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst()

/** The listing filters, each on an indexed column (labels and sentiment through their own indexed tables). */
export function filteredCalls(db: Db, workspaceId: string, q: CallFilterValues) {
  let qb = db.selectFrom('calls').selectAll('calls').where('calls.workspace_id', '=', workspaceId)
  if (q.agentId) qb = qb.where('calls.agent_id', '=', q.agentId)
  if (q.phoneNumberId) qb = qb.where('calls.phone_number_id', '=', q.phoneNumberId)
  const type = q.type ?? q.direction
  // agent test calls (issue 48) stay out of the listings unless asked for
  qb = type ? qb.where('calls.type', '=', type) : qb.where('calls.type', '<>', 'test')
  if (q.status) qb = qb.where('calls.status', '=', q.status)
  if (q.outcome) qb = qb.where('calls.outcome', '=', q.outcome)
  if (q.campaignId) qb = qb.where('calls.outbound_job_id', '=', q.campaignId)
  if (q.createdAfter) qb = qb.where('calls.created_at', '>=', new Date(q.createdAfter).toISOString())
  if (q.createdBefore) qb = qb.where('calls.created_at', '<', new Date(q.createdBefore).toISOString())
  if (q.label) {
    const label = q.label
    qb = qb.where((eb) =>
      eb.exists(eb.selectFrom('call_labels').select('call_labels.call_id').whereRef('call_labels.call_id', '=', 'calls.id').where('call_labels.label', '=', label)),
    )
  }
  if (q.sentiment) {
    const sentiment = q.sentiment
    qb = qb.where((eb) =>
      eb.exists(
        eb.selectFrom('call_analyses').select('call_analyses.call_id').whereRef('call_analyses.call_id', '=', 'calls.id').where('call_analyses.sentiment', '=', sentiment),
      ),
    )
  }
  return qb
}

export function listCalls(db: Db, workspaceId: string, q: CallsQuery) {
  return keysetPage(filteredCalls(db, workspaceId, q), 'calls.created_at', 'calls.id', q).execute()
}

/** What a call's ids name, read when the call is: the member by user id, our number by id, the agents that still exist. */
export interface CallNames {
  memberEmails: Map<string, string>
  numberLabels: Map<string, string>
  agents: Set<string>
}

const distinct = (ids: (string | null)[]) => [...new Set(ids.filter((id) => id !== null))]

/**
 * The names behind these rows' ids: the email of each member who placed a web or stream call
 * (`from` holds the user id; a user outlives a membership), the label of each number used (a
 * released number keeps its row) and which of their agents still exist. Three queries a page.
 */
export async function namesFor(db: Db, rows: readonly CallRow[]): Promise<CallNames> {
  const users = distinct(rows.filter((r) => r.type === 'web' || r.type === 'stream').map((r) => r.from_number))
  const numbers = distinct(rows.map((r) => r.phone_number_id))
  const agents = distinct(rows.map((r) => r.agent_id))
  const [members, labels, live] = await Promise.all([
    users.length ? db.selectFrom('users').select(['id', 'email']).where('id', 'in', users).execute() : [],
    numbers.length ? db.selectFrom('phone_numbers').select(['id', 'label']).where('id', 'in', numbers).execute() : [],
    agents.length ? db.selectFrom('agents').select('id').where('id', 'in', agents).execute() : [],
  ])
  return {
    memberEmails: new Map(members.map((u) => [u.id, u.email])),
    numberLabels: new Map(labels.map((n) => [n.id, n.label])),
    agents: new Set(live.map((a) => a.id)),
  }
}
