import type { Generated, Selectable } from 'kysely'

/** inbound and outbound are SIP calls; web calls come from a browser, stream calls from the media-stream WebSocket. */
export type CallType = 'inbound' | 'outbound' | 'web' | 'stream' | 'test'

/** queued (placed by the API, not yet dialled) -> ringing -> in_progress -> ended. */
export type CallStatus = 'queued' | 'ringing' | 'in_progress' | 'ended'

/**
 * How the call ended. completed: it was answered and ended normally (either side hung up);
 * the others say why it did not run its course.
 */
export type CallOutcome =
  | 'completed' | 'transferred' | 'busy' | 'no_answer' | 'not_found' | 'declined' | 'cancelled' | 'failed'
  | 'silence_timeout' | 'max_duration' | 'provider_error' | 'not_configured' | 'shutdown' | 'media_timeout'

export interface CallTable {
  id: string
  workspace_id: string
  /** No foreign key: a call record outlives the agent and the number it used. */
  agent_id: string | null
  agent_name: string | null
  phone_number_id: string | null
  type: CallType
  from_number: string
  to_number: string
  status: CallStatus
  outcome: CallOutcome | null
  /** Who or what ended the call: caller_hangup, agent_hangup, busy, ... (free text for operators). */
  end_reason: string | null
  sip_call_id: string | null
  /** JSON object of the variables filled into the prompt. */
  variables: Generated<string>
  /** JSON array of {role, text, timestamp}. */
  transcript: Generated<string>
  /** JSON array of {name, arguments, result, at}: the tools the agent called (voice/session ToolCallRecord). */
  tool_calls: Generated<string>
  /** JSON object, see calls.model.ts CallMetrics. */
  metrics: Generated<string>
  /** JSON object {total, llm, tts, stt, telephony}. */
  cost: Generated<string>
  /** Path of the stereo WAV under DATA_DIR/recordings, when recorded. */
  recording_path: string | null
  created_at: string
  started_at: string | null
  answered_at: string | null
  ended_at: string | null
  /** Whole seconds from answer to end; 0 when never answered. */
  duration_sec: Generated<number>
  /** The outbound job (campaign) and its contact that placed this call, if any. */
  outbound_job_id: string | null
  outbound_contact_id: string | null
  /** What answered an outbound call, from answering-machine detection: human, machine or unknown. */
  answered_by: AnsweredBy | null
  /** NODE_ID of the node running the call (PostgreSQL clusters close a lost node's calls by it). */
  node_id: string | null
  /** JSON of the call's media facts (conversation/media-facts.ts MediaFacts); null without media. */
  media: string | null
  /** 'true': a test call that ran the agent's draft prompt or an unsaved workflow. */
  test_draft: Generated<string>
}

export type AnsweredBy = 'human' | 'machine' | 'unknown'

export type CallRow = Selectable<CallTable>
