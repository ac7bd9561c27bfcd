import { type Db, keysetPage, type PageRequest } from '../../platform/db/index.ts'
import type { AgentTestTable } from './agent-tests.table.ts'

export const insertCase = (db: Db, row: AgentTestTable) => db.insertInto('agent_tests').values(row).execute()

export const findCase = (db: Db, workspaceId: string, agentId: string, id: string) =>
  db.selectFrom('agent_tests').selectAll().where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).where('id', '=', id).executeTakeFirst()

/** Newest first, `limit + 1` rows after the cursor. */
export const listCases = (db: Db, workspaceId: string, agentId: string, page: PageRequest) =>
  keysetPage(db.selectFrom('agent_tests').selectAll().where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId), 'created_at', 'id', page).execute()

/** Every case of the agent, oldest first (a run takes them in the order they were written). */
export const allCases = (db: Db, workspaceId: string, agentId: string) =>
  db.selectFrom('agent_tests').selectAll().where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).orderBy('created_at').orderBy('id').execute()

export async function countCases(db: Db, workspaceId: string, agentId: string): Promise<number> {
  const r = await db.selectFrom('agent_tests').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).executeTakeFirst()
  return Number(r?.n ?? 0)
}

export const updateCase = (db: Db, workspaceId: string, id: string, set: Partial<Pick<AgentTestTable, 'name' | 'caller' | 'expectations' | 'updated_at'>>) =>
  db.updateTable('agent_tests').set(set).where('workspace_id', '=', workspaceId).where('id', '=', id).execute()

export async function deleteCase(db: Db, workspaceId: string, agentId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('agent_tests').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).where('id', '=', id).executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}
