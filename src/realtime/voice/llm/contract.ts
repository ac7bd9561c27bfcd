import type { ConnOptions, ProviderStream } from '../base.ts'

export interface ToolCall {
  id: string
  name: string
  /** The arguments as the model wrote them: JSON text, parsed by whoever runs the tool. */
  arguments: string
}

export interface ToolSpec {
  name: string
  description: string
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>
}

/** The one message type of every conversation with a language model (calls, workflows, analysis). */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string }

/**
 * What the answer must be: a JSON value matching `schema` (an object schema), or any JSON object.
 * Each adapter asks its API for it the way that API does it best.
 */
export type ResponseFormat =
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; description?: string }
  | { type: 'json_object' }

export interface ChatRequest {
  messages: ChatMessage[]
  tools?: ToolSpec[]
  temperature?: number
  maxTokens?: number
  /** The backend's name of the model for this request; the adapter's own model when absent. */
  model?: string
  responseFormat?: ResponseFormat
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'other'

export type LlmEvent =
  | { type: 'text'; delta: string }
  /** Emitted once the call's arguments are complete. */
  | { type: 'tool_call'; call: ToolCall }
  /** Token counts as the provider reports them; cachedInputTokens: the part of inputTokens its prompt cache served (billed less). */
  | { type: 'usage'; inputTokens: number; outputTokens: number; cachedInputTokens?: number }
  | { type: 'done'; finishReason: FinishReason }

export interface LlmCapabilities {
  streaming: true
  toolCalls: boolean
  usage: boolean
}

export type LlmStream = ProviderStream<never, LlmEvent>

export interface CompleteOptions {
  /** Structured output: the answer's `value` is the JSON the model gave for this object schema. */
  schema?: { name: string; schema: Record<string, unknown>; description?: string }
  /** The answer's `value` is a JSON object (no schema to hold it to). */
  json?: boolean
  /** The backend's name of the model; the Llm's own model when absent. */
  model?: string
  maxTokens?: number
  /** 0 unless given: a completion is a decision more than a turn of talk. */
  temperature?: number
  /** The whole request, retries included, fails after this long (absent: only the adapter's per-attempt timeout). */
  timeoutMs?: number
}

/** A whole answer, as `complete` returns it. */
export interface Completion {
  text: string
  /** The parsed JSON when a schema or json was asked for. */
  value?: unknown
  model: string
  inputTokens: number
  outputTokens: number
  cachedInputTokens?: number
  finishReason: FinishReason
}

export interface Llm {
  readonly provider: string
  readonly model: string
  readonly capabilities: LlmCapabilities
  /** A streamed answer, with tool calls: a conversation's turn. */
  chat(request: ChatRequest, conn?: ConnOptions): LlmStream
  /** One whole answer, as text or structured JSON; throws a ProviderError when it fails for good. */
  complete(messages: ChatMessage[], options?: CompleteOptions): Promise<Completion>
}
