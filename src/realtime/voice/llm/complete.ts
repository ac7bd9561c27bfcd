// `complete` of every Llm, written once over its streamed chat: adapters differ only in how they
// ask their API for JSON (a ChatRequest's responseFormat), never in how a whole answer is
// gathered and read. Retries and the per-attempt timeout stay the stream's (ProviderStream).
import { ProviderError } from '../base.ts'
import type { ChatMessage, ChatRequest, CompleteOptions, Completion, FinishReason, Llm, ResponseFormat, ToolCall } from './contract.ts'

/** Said when JSON is asked for without a schema: OpenAI's json_object mode refuses messages that do not mention JSON, and Anthropic has no such mode. */
export const JSON_INSTRUCTION = 'Answer with one JSON object and nothing else.'

export function responseFormatOf(opts: CompleteOptions): ResponseFormat | undefined {
  if (opts.schema) return { type: 'json_schema', ...opts.schema }
  return opts.json ? { type: 'json_object' } : undefined
}

/** The chat request a completion sends. */
export function completionRequest(messages: ChatMessage[], opts: CompleteOptions): ChatRequest {
  const format = responseFormatOf(opts)
  const request: ChatRequest = { messages: format?.type === 'json_object' ? withJsonInstruction(messages) : messages, temperature: opts.temperature ?? 0 }
  if (opts.maxTokens !== undefined) request.maxTokens = opts.maxTokens
  if (opts.model) request.model = opts.model
  if (format) request.responseFormat = format
  return request
}

function withJsonInstruction(messages: ChatMessage[]): ChatMessage[] {
  const [first, ...rest] = messages
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${JSON_INSTRUCTION}` }, ...rest]
  return [{ role: 'system', content: JSON_INSTRUCTION }, ...messages]
}

/** The JSON of an answer written as text; a code fence or words around the one object are tolerated. */
export function parseJsonAnswer(text: string): unknown {
  const trimmed = text.trim()
  try {
    return JSON.parse(trimmed)
  } catch {
    const start = trimmed.indexOf('{')
    const end = trimmed.lastIndexOf('}')
    if (start < 0 || end < start) throw new Error('no JSON object in the answer')
    return JSON.parse(trimmed.slice(start, end + 1))
  }
}

/** Runs one request on `llm.chat` and gathers the whole answer. */
export async function completeByChat(llm: Pick<Llm, 'provider' | 'model' | 'chat'>, messages: ChatMessage[], opts: CompleteOptions = {}): Promise<Completion> {
  const request = completionRequest(messages, opts)
  const stream = llm.chat(request)
  let timedOut = false
  const timer = opts.timeoutMs
    ? setTimeout(() => {
        timedOut = true
        stream.close()
      }, opts.timeoutMs)
    : undefined
  let text = ''
  const calls: ToolCall[] = []
  let usage: Pick<Completion, 'inputTokens' | 'outputTokens' | 'cachedInputTokens'> = { inputTokens: 0, outputTokens: 0 }
  let finish: FinishReason | undefined
  let failure: ProviderError | undefined
  try {
    for await (const ev of stream) {
      if (ev.type === 'text') text += ev.delta
      else if (ev.type === 'tool_call') calls.push(ev.call)
      else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens, ...(ev.cachedInputTokens ? { cachedInputTokens: ev.cachedInputTokens } : {}) }
      else if (ev.type === 'done') finish = ev.finishReason
      else if (ev.type === 'error' && !ev.willRetry) failure = ev.error
    }
  } finally {
    if (timer) clearTimeout(timer)
  }
  if (timedOut) throw new ProviderError(llm.provider, 'timeout', `no answer within ${opts.timeoutMs} ms`, false)
  if (failure) throw failure
  if (!finish) throw new ProviderError(llm.provider, 'protocol', 'the answer ended before it was done', false)
  const completion: Completion = { text, model: request.model ?? llm.model, ...usage, finishReason: finish }
  if (request.responseFormat) completion.value = readValue(llm.provider, request.responseFormat, completion, calls)
  return completion
}

function readValue(provider: string, format: ResponseFormat, answer: Completion, calls: ToolCall[]): unknown {
  if (answer.finishReason === 'length') throw new ProviderError(provider, 'protocol', 'the JSON answer was cut off at the token limit', false)
  // Anthropic gives a schema's answer as the input of the tool named after it
  const call = format.type === 'json_schema' ? calls.find((c) => c.name === format.name) : undefined
  const source = call ? call.arguments : answer.text
  try {
    return parseJsonAnswer(source)
  } catch {
    throw new ProviderError(provider, 'protocol', `the answer is not the JSON asked for: ${source.slice(0, 80)}`, false)
  }
}

/** The same model with `timeoutMs` on every completion that sets none. */
export function withCompletionTimeout(llm: Llm, timeoutMs: number): Llm {
  return {
    provider: llm.provider,
    model: llm.model,
    capabilities: llm.capabilities,
    chat: (request, conn) => llm.chat(request, conn),
    complete: (messages, opts = {}) => llm.complete(messages, { timeoutMs, ...opts }),
  }
}
