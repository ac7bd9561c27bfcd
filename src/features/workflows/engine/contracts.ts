import type { Variables } from '../../../platform/template.ts'
import type { ChatMessage } from '../../../realtime/voice/llm/index.ts'
import type { TranscriptSource } from '../../../realtime/voice/session/index.ts'

/** Runs an agent's enabled tool (http_request, ...); the result is any JSON value. */
export interface ToolRunner {
  run(tool: string, args: Record<string, unknown>, ctx: { nodeId: string; variables: Variables }): Promise<unknown>
}

/** One caller turn: recognised speech, or keys pressed on the phone. */
export type EngineInput = { kind: 'speech'; text: string } | { kind: 'dtmf'; digits: string }

/** A passage an answer node spoke: the transcript's own record of which document answered. */
export type AnswerSource = TranscriptSource

/** The agent's knowledge bases, searched with a caller's turn (best first). */
export interface KnowledgeSearch {
  search(query: string, opts: { maxChars: number }): Promise<(AnswerSource & { spoken: string })[]>
}

export type RunErrorReason = 'llm_not_configured' | 'llm_failed' | 'tool_not_available' | 'knowledge_failed'

/** A run that cannot go on; names the node (and the edge) that needs what is missing. */
export class WorkflowRunError extends Error {
  constructor(
    readonly reason: RunErrorReason,
    readonly nodeId: string,
    message: string,
    readonly edgeId?: string,
  ) {
    super(message)
  }
}

export type FinalAction = 'transfer' | 'end_call' | 'loop_limit' | 'no_route'

export interface Final {
  action: FinalAction
  nodeId: string
  /** transfer only: E.164 number or SIP URI */
  target?: string
}

/** Everything a run needs to go on; plain JSON, so a call can keep it anywhere. */
export interface RunState {
  nodeId: string
  status: 'awaiting_input' | 'finished'
  visits: Record<string, number>
  variables: Variables
  /** Answers without a value given to the current collect node. */
  attempts: number
  history: ChatMessage[]
  lastInput: EngineInput | null
  final: Final | null
}

export interface StepResult {
  state: RunState
  /** Nodes entered during this step, in order. */
  visited: string[]
  /** What to say, in order; an answer node's line names the passages it came from. */
  responses: { nodeId: string; output: string; sources?: AnswerSource[] }[]
  /** Set when the run ended in this step: the voice driver transfers or hangs up. */
  final: Final | null
  /** A caller turn met one of the node's conditions, or a collect node's extraction; false when it fell through to the else edge or was asked again. */
  understood: boolean
}
