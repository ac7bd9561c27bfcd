import { type ConnOptions, DEFAULT_CONN, ProviderError, ProviderStream, statusError } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import { completeByChat } from './complete.ts'
import type { ChatMessage, ChatRequest, CompleteOptions, Completion, FinishReason, Llm, LlmEvent, ResponseFormat, ToolCall } from './contract.ts'
import { readSse } from './sse.ts'

export interface OpenAiLlmOptions {
  /** Up to and including `/v1`, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 (Ollama). */
  baseUrl: string
  apiKey: string
  model: string
  conn?: ConnOptions
}

/** Any OpenAI-compatible chat-completions endpoint: OpenAI, Groq, vLLM, llama.cpp server, Ollama. */
export class OpenAiLlm implements Llm {
  readonly provider = 'openai-llm'
  readonly capabilities = { streaming: true as const, toolCalls: true, usage: true }

  constructor(private readonly opts: OpenAiLlmOptions) {}

  get model(): string {
    return this.opts.model
  }

  chat(request: ChatRequest, conn = this.opts.conn ?? DEFAULT_CONN): OpenAiChatStream {
    return new OpenAiChatStream(this.opts, request, conn)
  }

  complete(messages: ChatMessage[], options?: CompleteOptions): Promise<Completion> {
    return completeByChat(this, messages, options)
  }
}

/** Structured output as chat completions take it; strict, so the answer holds to the schema. */
export function openAiResponseFormat(format: ResponseFormat): Record<string, unknown> {
  if (format.type === 'json_object') return { type: 'json_object' }
  const schema: Record<string, unknown> = { name: format.name, strict: true, schema: format.schema }
  if (format.description) schema.description = format.description
  return { type: 'json_schema', json_schema: schema }
}

export function toOpenAiMessages(messages: ChatMessage[]): unknown[] {
  return messages.map((m) => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content }
    if (m.role === 'assistant' && m.toolCalls?.length) {
      return {
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      }
    }
    return { role: m.role, content: m.content }
  })
}

interface ChunkToolCall {
  index?: number
  id?: string
  function?: { name?: string; arguments?: string }
}

interface Chunk {
  choices?: { delta?: { content?: string | null; tool_calls?: ChunkToolCall[] }; finish_reason?: string | null }[]
  usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null
  error?: { message?: string }
}

const FINISH: Record<string, FinishReason> = { stop: 'stop', tool_calls: 'tool_calls', function_call: 'tool_calls', length: 'length' }

export class OpenAiChatStream extends ProviderStream<never, LlmEvent> {
  constructor(
    private readonly opts: OpenAiLlmOptions,
    private readonly request: ChatRequest,
    conn: ConnOptions,
  ) {
    super('openai-llm', conn)
  }

  protected async attempt(_input: AsyncQueue<never>, emit: (e: LlmEvent) => void, signal: AbortSignal): Promise<void> {
    const body: Record<string, unknown> = {
      model: this.request.model ?? this.opts.model,
      messages: toOpenAiMessages(this.request.messages),
      stream: true,
      stream_options: { include_usage: true },
    }
    if (this.request.tools?.length) {
      body.tools = this.request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }))
    }
    if (this.request.temperature !== undefined) body.temperature = this.request.temperature
    if (this.request.maxTokens !== undefined) body.max_tokens = this.request.maxTokens
    if (this.request.responseFormat) body.response_format = openAiResponseFormat(this.request.responseFormat)
    const res = await fetch(`${this.opts.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal,
    })
    if (!res.ok) throw await statusError(this.provider, res)
    if (!res.body) throw new ProviderError(this.provider, 'protocol', 'response has no body', true)

    const calls = new Map<number, ToolCall>()
    let finish: FinishReason | undefined
    let sawDone = false
    for await (const ev of readSse(res.body, signal)) {
      if (ev.data === '[DONE]') {
        sawDone = true
        break
      }
      let chunk: Chunk
      try {
        chunk = JSON.parse(ev.data) as Chunk
      } catch {
        throw new ProviderError(this.provider, 'protocol', `malformed chunk: ${ev.data.slice(0, 80)}`, false)
      }
      if (chunk.error) throw new ProviderError(this.provider, 'status', chunk.error.message ?? 'stream error', true)
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta ?? {}
        if (typeof delta.content === 'string' && delta.content.length > 0) emit({ type: 'text', delta: delta.content })
        for (const tc of delta.tool_calls ?? []) {
          const index = tc.index ?? 0
          let call = calls.get(index)
          if (!call) {
            call = { id: tc.id ?? `call_${index}`, name: '', arguments: '' }
            calls.set(index, call)
          }
          if (tc.id) call.id = tc.id
          if (tc.function?.name) call.name += tc.function.name
          if (tc.function?.arguments) call.arguments += tc.function.arguments
        }
        if (choice.finish_reason) finish = FINISH[choice.finish_reason] ?? 'other'
      }
      if (chunk.usage) {
        const cached = chunk.usage.prompt_tokens_details?.cached_tokens
        emit({ type: 'usage', inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0, ...(cached ? { cachedInputTokens: cached } : {}) })
      }
    }
    if (signal.aborted) return
    if (!sawDone && finish === undefined) {
      throw new ProviderError(this.provider, 'protocol', 'stream ended before [DONE]', true)
    }
    for (const [, call] of [...calls].sort((a, b) => a[0] - b[0])) {
      if (!call.name) throw new ProviderError(this.provider, 'protocol', 'tool call without a name', false)
      emit({ type: 'tool_call', call: { ...call, arguments: call.arguments || '{}' } })
    }
    emit({ type: 'done', finishReason: finish ?? (calls.size > 0 ? 'tool_calls' : 'stop') })
  }
}
