export interface AgentTestTable {
  id: string
  workspace_id: string
  agent_id: string
  name: string
  /** JSON: {turns, voice} with the voice's defaults filled in. */
  caller: string
  /** JSON array of expectations. */
  expectations: string
  /** api or workflow (generated). */
  source: string
  created_at: string
  updated_at: string
}
