import { type Db, keysetPage, type PageRequest } from '../../platform/db/index.ts'
import type { AgentTestResultTable, AgentTestRunTable } from './agent-tests.table.ts'

export async function insertRun(db: Db, run: AgentTestRunTable, results: AgentTestResultTable[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('agent_test_runs').values(run).execute()
    await trx.insertInto('agent_test_results').values(results).execute()
  })
}

export const findRun = (db: Db, workspaceId: string, agentId: string, id: string) =>
  db.selectFrom('agent_test_runs').selectAll().where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).where('id', '=', id).executeTakeFirst()

export const listRuns = (db: Db, workspaceId: string, agentId: string, page: PageRequest) =>
  keysetPage(db.selectFrom('agent_test_runs').selectAll().where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId), 'created_at', 'id', page).execute()

export const resultsOf = (db: Db, runIds: string[]) =>
  runIds.length ? db.selectFrom('agent_test_results').selectAll().where('run_id', 'in', runIds).orderBy('position').execute() : Promise.resolve([])

export const updateResult = (db: Db, id: string, set: Partial<AgentTestResultTable>) => db.updateTable('agent_test_results').set(set).where('id', '=', id).execute()

export const finishRun = (db: Db, id: string, set: Pick<AgentTestRunTable, 'status' | 'passed' | 'failed' | 'finished_at'>) =>
  db.updateTable('agent_test_runs').set(set).where('id', '=', id).where('status', '=', 'running').execute()

/** At start: runs the last process left running are interrupted, and so are their unfinished results. */
export async function interruptLeftover(db: Db, now: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const runs = await trx.selectFrom('agent_test_runs').select('id').where('status', '=', 'running').execute()
    if (!runs.length) return 0
    const ids = runs.map((r) => r.id)
    await trx.updateTable('agent_test_results').set({ status: 'interrupted', error: 'the appliance stopped before this case finished', finished_at: now }).where('run_id', 'in', ids).where('status', 'in', ['pending', 'running']).execute()
    await trx.updateTable('agent_test_runs').set({ status: 'interrupted', finished_at: now }).where('id', 'in', ids).execute()
    return ids.length
  })
}

/** The test call's record, once ended, by the SIP Call-ID both legs share. */
export const endedTestCall = (db: Db, workspaceId: string, sipCallId: string) =>
  db.selectFrom('calls').selectAll().where('workspace_id', '=', workspaceId).where('sip_call_id', '=', sipCallId).where('type', '=', 'test').executeTakeFirst()
