/**
 * A local stand-in for an OpenAI chat-completions server: POST /v1/chat/completions with a
 * Bearer key, answering as JSON or, when `stream: true`, as server-sent events of
 * `chat.completion.chunk` objects ending in `data: [DONE]`, as the real service does.
 * What it answers is decided by `answer(request)`; every request is recorded.
 */

export interface ChatRequest {
  model: string
  messages: { role: string; content: string }[]
  stream?: boolean
  /** Structured output (the post-call analysis asks for a JSON schema). */
  response_format?: { type: string }
  temperature?: number
  max_tokens?: number
}

export type Answer = string | { status: number; message: string } | { streamError: string }

export interface FakeOpenAi {
  /** e.g. http://127.0.0.1:40123/v1 */
  baseUrl: string
  apiKey: string
  requests: ChatRequest[]
  answer: (req: ChatRequest) => Answer
  /** Opt-in: a streamed answer's first event waits this long (the model's time to first token); 0 by default. */
  firstTokenMs: number
  stop(): Promise<void>
}

const errorJson = (status: number, message: string, type = 'invalid_request_error') =>
  Response.json({ error: { message, type, param: null, code: null } }, { status })

export function startFakeOpenAi(answer: (req: ChatRequest) => Answer, apiKey = 'sk-test-fake'): FakeOpenAi {
  const fake: FakeOpenAi = { baseUrl: '', apiKey, requests: [], answer, firstTokenMs: 0, stop: async () => {} }
  let n = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      if (request.method !== 'POST' || url.pathname !== '/v1/chat/completions') return errorJson(404, `Unknown request URL: ${request.method} ${url.pathname}`)
      if (request.headers.get('authorization') !== `Bearer ${fake.apiKey}`) return errorJson(401, 'Incorrect API key provided', 'invalid_api_key')
      let body: ChatRequest
      try {
        body = (await request.json()) as ChatRequest
      } catch {
        return errorJson(400, 'We could not parse the JSON body of your request.')
      }
      if (typeof body.model !== 'string' || !Array.isArray(body.messages) || body.messages.length === 0) {
        return errorJson(400, "you must provide a model parameter and a non-empty 'messages' array")
      }
      fake.requests.push(body)
      const out = fake.answer(body)
      if (typeof out === 'object' && 'status' in out) return errorJson(out.status, out.message, 'server_error')
      const id = `chatcmpl-fake${++n}`
      const created = Math.floor(Date.now() / 1000)
      if (!body.stream) {
        if (typeof out !== 'string') return errorJson(500, out.streamError, 'server_error')
        return Response.json({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: out }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: out.split(/\s+/).length, total_tokens: 10 + out.split(/\s+/).length },
        })
      }
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
      const events: string[] = [chunk({ role: 'assistant', content: '' }, null)]
      if (typeof out === 'string') {
        for (const piece of out.match(/\S+\s*/g) ?? []) events.push(chunk({ content: piece }, null))
        events.push(chunk({}, 'stop'), 'data: [DONE]\n\n')
      } else {
        events.push(`data: ${JSON.stringify({ error: { message: out.streamError, type: 'server_error' } })}\n\n`)
      }
      const encoder = new TextEncoder()
      const firstTokenMs = fake.firstTokenMs
      let cancelled = false
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const send = () => {
            if (cancelled) return
            // Each event goes out in two pieces: clients must reassemble lines split across reads.
            for (const e of events) {
              const bytes = encoder.encode(e)
              const mid = Math.floor(bytes.length / 2)
              controller.enqueue(bytes.slice(0, mid))
              controller.enqueue(bytes.slice(mid))
            }
            controller.close()
          }
          if (firstTokenMs > 0) return Bun.sleep(firstTokenMs).then(send)
          send()
        },
        cancel() {
          cancelled = true
        },
      })
      return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
    },
  })
  fake.baseUrl = `http://127.0.0.1:${server.port}/v1`
  fake.stop = async () => {
    await server.stop(true)
  }
  return fake
}
