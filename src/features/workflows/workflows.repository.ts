import type { Db } from '../../platform/db/index.ts'
import type { WorkflowGraph } from './workflow.model.ts'
import type { WorkflowTable } from './workflows.table.ts'

export const findWorkflow = (db: Db, workspaceId: string, agentId: string) =>
  db.selectFrom('workflows').selectAll().where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).executeTakeFirst()

/** Insert or replace the agent's workflow, keeping its created_at. */
export async function upsertWorkflow(db: Db, row: WorkflowTable): Promise<WorkflowTable | undefined> {
  return db
    .insertInto('workflows')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('agent_id')
        .doUpdateSet({ graph: row.graph, updated_at: row.updated_at })
        .where('workflows.workspace_id', '=', row.workspace_id),
    )
    .returningAll()
    .executeTakeFirst()
}

export async function deleteWorkflow(db: Db, workspaceId: string, agentId: string): Promise<boolean> {
  const r = await db.deleteFrom('workflows').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).executeTakeFirst()
  return Number(r.numDeletedRows) > 0
}

/** The graph of an agent's workflow, or undefined when it has none. */
export async function findWorkflowGraph(db: Db, workspaceId: string, agentId: string): Promise<WorkflowGraph | undefined> {
  const row = await findWorkflow(db, workspaceId, agentId)
  return row ? (JSON.parse(row.graph) as WorkflowGraph) : undefined
}
