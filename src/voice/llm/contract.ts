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

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string }

export interface ChatRequest {
  messages: ChatMessage[]
  tools?: ToolSpec[]
  temperature?: number
  maxTokens?: number
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'other'

export type LlmEvent =
  | { type: 'text'; delta: string }
  /** Emitted once the call's arguments are complete. */
  | { type: 'tool_call'; call: ToolCall }
  /** Token counts as the provider reports them. */
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  | { type: 'done'; finishReason: FinishReason }

export interface LlmCapabilities {
  streaming: true
  toolCalls: boolean
  usage: boolean
}

export type LlmStream = ProviderStream<never, LlmEvent>

export interface Llm {
  readonly provider: string
  readonly model: string
  readonly capabilities: LlmCapabilities
  chat(request: ChatRequest, conn?: ConnOptions): LlmStream
}
