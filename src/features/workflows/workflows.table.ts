/**
 * One workflow per agent. agent_id refers to agents.id; the foreign key is added with the
 * agents table (the workflow is deleted with its agent).
 */
export interface WorkflowTable {
  agent_id: string
  workspace_id: string
  /** JSON of {nodes, edges, settings}, validated before it is written */
  graph: string
  created_at: string
  updated_at: string
}
