import { type ConnOptions, DEFAULT_CONN, ProviderError, ProviderStream, statusError } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import { completeByChat } from './complete.ts'
import type { ChatMessage, ChatRequest, CompleteOptions, Completion, FinishReason, Llm, LlmEvent, ResponseFormat, ToolSpec } from './contract.ts'
import { readSse } from './sse.ts'

export interface AnthropicLlmOptions {
  /** e.g. https://api.anthropic.com (the adapter appends /v1/messages). */
  baseUrl: string
  apiKey: string
  model: string
  /** Anthropic requires a ceiling on the reply. */
  maxTokens?: number
  conn?: ConnOptions
}

export const ANTHROPIC_VERSION = '2023-06-01'

/** Anthropic Messages API, streaming, with tool use. */
export class AnthropicLlm implements Llm {
  readonly provider = 'anthropic-llm'
  readonly capabilities = { streaming: true as const, toolCalls: true, usage: true }

  constructor(private readonly opts: AnthropicLlmOptions) {}

  get model(): string {
    return this.opts.model
  }

  chat(request: ChatRequest, conn = this.opts.conn ?? DEFAULT_CONN): AnthropicChatStream {
    return new AnthropicChatStream(this.opts, request, conn)
  }

  complete(messages: ChatMessage[], options?: CompleteOptions): Promise<Completion> {
    return completeByChat(this, messages, options)
  }
}

/**
 * The request's tools and tool choice. A schema is asked for as a tool the model must call, its
 * input the answer: every Claude model honours a forced tool_choice (the native JSON output
 * format is a beta of some models only). JSON without a schema rests on the instruction
 * `complete` adds, Anthropic having no JSON mode.
 */
export function anthropicTools(tools: ToolSpec[] = [], format?: ResponseFormat): Record<string, unknown> {
  const out: Record<string, unknown>[] = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }))
  if (format?.type !== 'json_schema') return out.length ? { tools: out } : {}
  out.push({ name: format.name, description: format.description ?? 'Give your answer as the input of this tool.', input_schema: format.schema })
  return { tools: out, tool_choice: { type: 'tool', name: format.name } }
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string }

/** System prompts go to `system`; tool results become user turns; same-role neighbours merge. */
export function toAnthropicMessages(messages: ChatMessage[]): { system: string; messages: { role: string; content: Block[] }[] } {
  const system: string[] = []
  const out: { role: string; content: Block[] }[] = []
  const add = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = out[out.length - 1]
    if (last && last.role === role) last.content.push(...blocks)
    else out.push({ role, content: blocks })
  }
  for (const m of messages) {
    if (m.role === 'system') system.push(m.content)
    else if (m.role === 'user') add('user', [{ type: 'text', text: m.content }])
    else if (m.role === 'tool') add('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }])
    else {
      const blocks: Block[] = m.content ? [{ type: 'text', text: m.content }] : []
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: parseArgs(c.arguments) })
      if (blocks.length) add('assistant', blocks)
    }
  }
  return { system: system.join('\n\n'), messages: out }
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text || '{}')
  } catch {
    return {}
  }
}

const STOP: Record<string, FinishReason> = { end_turn: 'stop', stop_sequence: 'stop', tool_use: 'tool_calls', max_tokens: 'length' }
const RETRYABLE_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error'])

type Json = any

export class AnthropicChatStream extends ProviderStream<never, LlmEvent> {
  constructor(
    private readonly opts: AnthropicLlmOptions,
    private readonly request: ChatRequest,
    conn: ConnOptions,
  ) {
    super('anthropic-llm', conn)
  }

  protected async attempt(_input: AsyncQueue<never>, emit: (e: LlmEvent) => void, signal: AbortSignal): Promise<void> {
    const { system, messages } = toAnthropicMessages(this.request.messages)
    const body: Record<string, unknown> = {
      model: this.request.model ?? this.opts.model,
      max_tokens: this.request.maxTokens ?? this.opts.maxTokens ?? 1024,
      messages,
      stream: true,
    }
    if (system) body.system = system
    if (this.request.temperature !== undefined) body.temperature = this.request.temperature
    Object.assign(body, anthropicTools(this.request.tools, this.request.responseFormat))
    const res = await fetch(`${this.opts.baseUrl.replace(/\/+$/, '')}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-api-key': this.opts.apiKey,
        'anthropic-version': ANTHROPIC_VERSION,
      },
      body: JSON.stringify(body),
      signal,
    })
    if (!res.ok) throw await statusError(this.provider, res)
    if (!res.body) throw new ProviderError(this.provider, 'protocol', 'response has no body', true)

    const tools = new Map<number, { id: string; name: string; json: string }>()
    let inputTokens = 0
    let outputTokens = 0
    let finish: FinishReason = 'stop'
    let stopped = false
    for await (const ev of readSse(res.body, signal)) {
      let data: Json
      try {
        data = JSON.parse(ev.data)
      } catch {
        throw new ProviderError(this.provider, 'protocol', `malformed event ${ev.event}: ${ev.data.slice(0, 80)}`, false)
      }
      switch (data.type ?? ev.event) {
        case 'message_start':
          inputTokens = data.message?.usage?.input_tokens ?? 0
          outputTokens = data.message?.usage?.output_tokens ?? 0
          break
        case 'content_block_start':
          if (data.content_block?.type === 'tool_use') {
            tools.set(data.index, { id: data.content_block.id, name: data.content_block.name, json: '' })
          } else if (data.content_block?.type === 'text' && data.content_block.text) {
            emit({ type: 'text', delta: data.content_block.text })
          }
          break
        case 'content_block_delta':
          if (data.delta?.type === 'text_delta' && data.delta.text) emit({ type: 'text', delta: data.delta.text })
          else if (data.delta?.type === 'input_json_delta') {
            const t = tools.get(data.index)
            if (t) t.json += data.delta.partial_json ?? ''
          }
          break
        case 'content_block_stop': {
          const t = tools.get(data.index)
          if (t) {
            emit({ type: 'tool_call', call: { id: t.id, name: t.name, arguments: t.json || '{}' } })
            tools.delete(data.index)
          }
          break
        }
        case 'message_delta':
          if (data.delta?.stop_reason) finish = STOP[data.delta.stop_reason] ?? 'other'
          if (data.usage?.output_tokens !== undefined) outputTokens = data.usage.output_tokens
          if (data.usage?.input_tokens !== undefined) inputTokens = data.usage.input_tokens
          break
        case 'message_stop':
          stopped = true
          break
        case 'error': {
          const kind = data.error?.type ?? 'error'
          throw new ProviderError(this.provider, 'status', `${kind}: ${data.error?.message ?? ''}`, RETRYABLE_ERRORS.has(kind))
        }
        default:
          break // ping and event types added later
      }
      if (stopped) break
    }
    if (signal.aborted) return
    if (!stopped) throw new ProviderError(this.provider, 'protocol', 'stream ended before message_stop', true)
    emit({ type: 'usage', inputTokens, outputTokens })
    emit({ type: 'done', finishReason: finish })
  }
}
