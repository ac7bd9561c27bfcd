import { type Delays, isFailure, isHang, NO_DELAY, pacedBody, type Planned, sse } from './paced.ts'

export interface AnthropicReply {
  text?: string
  toolUses?: { name: string; input: unknown }[]
  usage?: { input: number; output: number }
  /** An `event: error` in the middle of the stream, as the API sends when overloaded. */
  midStreamError?: { type: string; message: string }
  truncateAfter?: number
}

/** The events of one streamed Messages response, in the order and shape the API sends them. */
export function anthropicEvents(reply: AnthropicReply, model: string): string[] {
  const usage = reply.usage ?? { input: 12, output: 6 }
  const out: string[] = []
  const ev = (type: string, data: Record<string, unknown>) => out.push(sse({ type, ...data }, type))
  ev('message_start', {
    message: {
      id: `msg_${Math.random().toString(36).slice(2, 14)}`,
      type: 'message',
      role: 'assistant',
      content: [],
      model,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  })
  let index = 0
  if (reply.text) {
    ev('content_block_start', { index, content_block: { type: 'text', text: '' } })
    out.push(sse({ type: 'ping' }, 'ping'))
    for (const piece of reply.text.match(/\S+\s*|\s+/g) ?? []) {
      ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } })
      if (reply.midStreamError) {
        ev('error', { error: reply.midStreamError })
        return out
      }
    }
    ev('content_block_stop', { index })
    index++
  }
  for (const tool of reply.toolUses ?? []) {
    const json = JSON.stringify(tool.input)
    ev('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: `toolu_${Math.random().toString(36).slice(2, 14)}`, name: tool.name, input: {} },
    })
    ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } })
    for (let i = 0; i < json.length; i += 9) {
      ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 9) } })
    }
    ev('content_block_stop', { index })
    index++
  }
  ev('message_delta', {
    delta: { stop_reason: reply.toolUses?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output },
  })
  ev('message_stop', {})
  return reply.truncateAfter === undefined ? out : out.slice(0, reply.truncateAfter)
}

export interface FakeAnthropic {
  url: string
  requests: { headers: Headers; body: any }[]
  plan: Planned<AnthropicReply>[]
  /** Answers a request when `plan` is empty, from what was asked (the request body). */
  answer?: (body: any) => Planned<AnthropicReply>
  delays: Delays
  stop(): void
}

/** A local server speaking the Anthropic Messages streaming protocol. */
export function startFakeAnthropic(): FakeAnthropic {
  const fake: FakeAnthropic = {
    url: '',
    requests: [],
    plan: [],
    delays: { ...NO_DELAY },
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url)
      if (req.method !== 'POST' || url.pathname !== '/v1/messages') return new Response('not found', { status: 404 })
      if (!req.headers.get('x-api-key')) {
        return Response.json({ type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } }, { status: 401 })
      }
      const body = (await req.json()) as any
      fake.requests.push({ headers: req.headers, body })
      const plan = fake.plan.shift() ?? fake.answer?.(body)
      if (plan === undefined || isFailure(plan)) {
        const status = plan?.failStatus ?? 500
        const type = status === 529 ? 'overloaded_error' : 'api_error'
        return Response.json({ type: 'error', error: { type, message: plan?.body ?? 'no scripted reply' } }, { status })
      }
      const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }
      if (isHang(plan)) return new Response(pacedBody([], fake.delays, true), { headers })
      return new Response(pacedBody(anthropicEvents(plan, body.model), fake.delays), { headers })
    },
  })
  fake.url = `http://127.0.0.1:${server.port}`
  return fake
}
