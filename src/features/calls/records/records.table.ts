import type { Selectable } from 'kysely'

export type AnalysisStatus = 'pending' | 'completed' | 'failed'
export type Sentiment = 'positive' | 'neutral' | 'negative'
export type EvaluationType = 'manual' | 'automatic'

/** One per ended call: written pending when the call ends, filled by the analysis worker. */
export interface CallAnalysisTable {
  call_id: string
  workspace_id: string
  status: AnalysisStatus
  summary: string
  /** Null until completed. */
  sentiment: Sentiment | null
  /** 0 or 1 */
  is_voicemail: number
  /** The LLM that analysed the call; '' for the offline analysis. */
  model: string
  input_tokens: number
  output_tokens: number
  /** USD */
  cost: number
  error: string | null
  attempts: number
  run_after: string
  lease_owner: string | null
  lease_expires_at: string | null
  created_at: string
  completed_at: string | null
}

export interface CallEvaluationTable {
  id: string
  call_id: string
  workspace_id: string
  type: EvaluationType
  /** 0-100 */
  score: number
  evaluator_name: string
  comment: string
  /** JSON array of {name, score, comment?}. */
  criteria: string
  created_at: string
}

export interface CallLabelTable {
  call_id: string
  workspace_id: string
  label: string
  created_at: string
}

/** How an agent's calls are analysed: the LLM model and prompt, and the rubric scored after each call. */
export interface AgentAnalysisSettingsTable {
  agent_id: string
  workspace_id: string
  /** '' uses LLM_MODEL. */
  model: string
  /** '' uses the built-in prompt. */
  prompt: string
  /** JSON array of {name, description, weight}. */
  criteria: string
  updated_at: string
}

export type AnalysisRow = Selectable<CallAnalysisTable>
export type EvaluationRow = Selectable<CallEvaluationTable>
