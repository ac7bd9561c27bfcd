import type { ChatMessage } from '../engine/contracts.ts'

export interface OpenAiChatOptions {
  /** e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1 (Ollama), a vLLM or llama.cpp server */
  baseUrl: string
  apiKey?: string
  model: string
  timeoutMs: number
}

export class LlmError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message)
  }
}

const MAX_ERROR_BODY = 2000

/**
 * A small client for the OpenAI chat-completions protocol (POST {baseUrl}/chat/completions),
 * as plain JSON or as a server-sent event stream. Kept to what workflows need; the voice
 * pipeline's LLM adapter is the full one.
 */
export class OpenAiChatClient {
  constructor(private readonly opts: OpenAiChatOptions) {}

  private async post(body: Record<string, unknown>): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`
    let res: Response
    try {
      res = await fetch(`${this.opts.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.opts.model, ...body }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      })
    } catch (err) {
      const e = err as Error
      throw new LlmError(e.name === 'TimeoutError' ? `no answer within ${this.opts.timeoutMs} ms` : `cannot reach the LLM: ${e.message}`)
    }
    if (!res.ok) {
      const text = (await res.text().catch(() => '')).slice(0, MAX_ERROR_BODY)
      let detail = text
      try {
        detail = JSON.parse(text)?.error?.message ?? text
      } catch {}
      throw new LlmError(`LLM answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`, res.status)
    }
    return res
  }

  /** One completion as a JSON response; returns the first choice's text. */
  async complete(messages: ChatMessage[], opts: { maxTokens?: number; temperature?: number } = {}): Promise<string> {
    const res = await this.post({ messages, stream: false, temperature: opts.temperature ?? 0, ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}) })
    let json: unknown
    try {
      json = await res.json()
    } catch {
      throw new LlmError('LLM answer is not JSON')
    }
    const content = (json as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content
    if (typeof content !== 'string') throw new LlmError('LLM answer has no choices[0].message.content')
    return content
  }

  /**
   * One structured-output completion (`response_format: json_schema`, strict) with its token
   * usage; the content is parsed as JSON but not checked against the schema (callers do).
   */
  async completeJson(
    messages: ChatMessage[],
    format: { name: string; schema: Record<string, unknown> },
    opts: { maxTokens?: number } = {},
  ): Promise<{ value: unknown; inputTokens: number; outputTokens: number }> {
    const res = await this.post({
      messages,
      stream: false,
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: format.name, strict: true, schema: format.schema } },
      ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}),
    })
    let json: { choices?: { message?: { content?: unknown } }[]; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }
    try {
      json = (await res.json()) as typeof json
    } catch {
      throw new LlmError('LLM answer is not JSON')
    }
    const content = json?.choices?.[0]?.message?.content
    if (typeof content !== 'string') throw new LlmError('LLM answer has no choices[0].message.content')
    let value: unknown
    try {
      value = JSON.parse(content)
    } catch {
      throw new LlmError('LLM content is not the JSON object asked for')
    }
    const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0)
    return { value, inputTokens: n(json.usage?.prompt_tokens), outputTokens: n(json.usage?.completion_tokens) }
  }

  /** A streamed completion: yields text deltas as the server sends them. */
  async *stream(messages: ChatMessage[], opts: { temperature?: number } = {}): AsyncGenerator<string> {
    const res = await this.post({ messages, stream: true, temperature: opts.temperature ?? 0.7 })
    if (!res.body) throw new LlmError('LLM stream has no body')
    const decoder = new TextDecoder()
    let buffer = ''
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true })
      let nl = buffer.indexOf('\n')
      while (nl >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '')
        buffer = buffer.slice(nl + 1)
        nl = buffer.indexOf('\n')
        if (!line.startsWith('data:')) continue
        const data = line.slice(5).trim()
        if (data === '[DONE]') return
        let event: { choices?: { delta?: { content?: unknown } }[]; error?: { message?: string } }
        try {
          event = JSON.parse(data)
        } catch {
          throw new LlmError('LLM stream sent an event that is not JSON')
        }
        if (event.error) throw new LlmError(`LLM stream error: ${event.error.message ?? 'unknown'}`)
        const delta = event.choices?.[0]?.delta?.content
        if (typeof delta === 'string' && delta !== '') yield delta
      }
    }
    throw new LlmError('LLM stream ended without [DONE]')
  }
}
