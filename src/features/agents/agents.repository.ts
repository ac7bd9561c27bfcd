import type { Db } from '../../platform/db/index.ts'
import { type PageRequest, keysetPage } from '../../platform/db/index.ts'
import type { AgentRole, AgentTable, AgentType } from './agents.table.ts'

export const insertAgent = (db: Db, row: AgentTable) => db.insertInto('agents').values(row).execute()

export const findAgent = (db: Db, workspaceId: string, id: string) =>
  db.selectFrom('agents').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst()

export const findAgentAnyWorkspace = (db: Db, id: string) => db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst()

/** Every llmModel some agent of any workspace names. */
export const agentLlmModels = async (db: Db): Promise<string[]> => (await db.selectFrom('agents').select('llm_model').distinct().execute()).map((r) => r.llm_model)

export function listAgents(db: Db, workspaceId: string, filter: { agentType?: AgentType; role?: AgentRole }, page: PageRequest) {
  let q = db.selectFrom('agents').selectAll().where('workspace_id', '=', workspaceId)
  if (filter.agentType) q = q.where('agent_type', '=', filter.agentType)
  if (filter.role) q = q.where('role', '=', filter.role)
  return keysetPage(q, 'created_at', 'id', page).execute()
}

/** Writes a changed agent only if nobody changed it since `version` was read. */
export async function updateAgent(db: Db, row: AgentTable, expectedVersion: number): Promise<boolean> {
  const { id, workspace_id, created_at, ...rest } = row
  const r = await db
    .updateTable('agents')
    .set(rest)
    .where('id', '=', id)
    .where('workspace_id', '=', workspace_id)
    .where('version', '=', expectedVersion)
    .executeTakeFirst()
  return r.numUpdatedRows > 0n
}

export const deleteAgent = (db: Db, workspaceId: string, id: string) =>
  db.deleteFrom('agents').where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst()

/** Live phone numbers that route to the agent. */
export const numbersUsingAgent = (db: Db, agentId: string) =>
  db
    .selectFrom('phone_numbers')
    .select(['id'])
    .where('released_at', 'is', null)
    .where((eb) => eb.or([eb('inbound_agent_id', '=', agentId), eb('outbound_agent_id', '=', agentId)]))
    .execute()

/** Live phone numbers that use the agent in the given direction. */
export const numbersUsingAgentAs = (db: Db, agentId: string, direction: AgentType) =>
  db
    .selectFrom('phone_numbers')
    .select(['id'])
    .where('released_at', 'is', null)
    .where(direction === 'inbound' ? 'inbound_agent_id' : 'outbound_agent_id', '=', agentId)
    .execute()

/** The workspace's agents whose knowledge_base_ids may hold `baseId` (a JSON list of quoted ids; `_` matching any character only widens the list). */
export const agentsLinkingBase = (db: Db, workspaceId: string, baseId: string) =>
  db.selectFrom('agents').selectAll().where('workspace_id', '=', workspaceId).where('knowledge_base_ids', 'like', `%"${baseId.replace(/[%"\\]/g, '')}"%`).execute()
