export interface AgentTestTable {
  id: string
  workspace_id: string
  agent_id: string
  name: string
  /** JSON: {turns, voice} with the voice's defaults filled in. */
  caller: string
  /** JSON array of expectations. */
  expectations: string
  /** api, or workflow / knowledge (generated). */
  source: string
  created_at: string
  updated_at: string
}

/** running -> passed | failed; interrupted when the appliance stopped before the run finished. */
export type RunStatus = 'running' | 'passed' | 'failed' | 'interrupted'
export type ResultStatus = 'pending' | 'running' | 'passed' | 'failed' | 'error' | 'interrupted'

export interface AgentTestRunTable {
  id: string
  workspace_id: string
  agent_id: string
  /** draft or published: which prompt the calls ran. */
  version: string
  status: RunStatus
  total: number
  passed: number
  failed: number
  created_at: string
  finished_at: string | null
}

export interface AgentTestResultTable {
  id: string
  run_id: string
  workspace_id: string
  test_id: string
  /** The case's name when it ran (a case may be renamed or deleted later). */
  name: string
  status: ResultStatus
  /** The test call's record (transcript, recording, metrics). */
  call_id: string | null
  /** JSON array of verdicts {index, type, passed, reason?}. */
  verdicts: string
  /** Why the call could not be judged at all (not answered, no record). */
  error: string | null
  position: number
  started_at: string | null
  finished_at: string | null
}
