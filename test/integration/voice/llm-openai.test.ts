import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { drain } from '../../../src/realtime/voice/base.ts'
import { OpenAiLlm, type LlmEvent } from '../../../src/realtime/voice/llm/index.ts'
import { startFakeOpenAi } from '../../fakes/openai.ts'

const fake = startFakeOpenAi()
afterAll(() => fake.stop())
beforeEach(() => {
  fake.requests.length = 0
  fake.chat.length = 0
  fake.delays = { firstMs: 0, chunkMs: 0 }
})

const llm = (timeoutMs = 2000) =>
  new OpenAiLlm({ baseUrl: fake.url, apiKey: 'sk-test', model: 'gpt-test', conn: { maxRetries: 2, timeoutMs, retryIntervalMs: 1 } })

const text = (events: LlmEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('')

describe('OpenAI-compatible chat completions adapter', () => {
  test('streams the reply as text deltas, then the provider usage and a stop', async () => {
    fake.chat.push({ text: 'Hello there. How can I help you today?', usage: { prompt: 42, completion: 9 } })
    fake.delays = { firstMs: 5, chunkMs: 2 }
    const { events, errors } = await drain(llm().chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(errors).toEqual([])
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(3)
    expect(text(events)).toBe('Hello there. How can I help you today?')
    expect(events.at(-2)).toEqual({ type: 'usage', inputTokens: 42, outputTokens: 9 })
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' })
    const sent = fake.requests[0]!
    expect(sent.headers.get('authorization')).toBe('Bearer sk-test')
    expect(sent.body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true } })
  })

  test('reports the input tokens the prompt cache served, in the stream and in a whole completion', async () => {
    fake.chat.push({ text: 'Hello.', usage: { prompt: 2048, completion: 3, cached: 1536 } }, { text: 'Again.', usage: { prompt: 2048, completion: 3, cached: 1536 } })
    const { events } = await drain(llm().chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(events.find((e) => e.type === 'usage')).toEqual({ type: 'usage', inputTokens: 2048, outputTokens: 3, cachedInputTokens: 1536 })
    expect(await llm().complete([{ role: 'user', content: 'hi' }])).toMatchObject({ inputTokens: 2048, outputTokens: 3, cachedInputTokens: 1536 })
  })

  test('assembles tool calls whose arguments arrive in pieces and sends tools in the function format', async () => {
    const args = JSON.stringify({ url: 'https://example.com/x', method: 'GET' })
    fake.chat.push({ toolCalls: [{ name: 'http_request', arguments: args }, { name: 'end_call', arguments: '{}' }] })
    const tools = [{ name: 'http_request', description: 'call an API', parameters: { type: 'object', properties: { url: { type: 'string' } } } }]
    const { events } = await drain(llm().chat({ messages: [{ role: 'user', content: 'look it up' }], tools }))
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []))
    expect(calls.map((c) => [c.name, c.arguments])).toEqual([
      ['http_request', args],
      ['end_call', '{}'],
    ])
    expect(calls[0]!.id).toMatch(/^call_/)
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'tool_calls' })
    expect(fake.requests[0]!.body.tools).toEqual([{ type: 'function', function: tools[0] }])
  })

  test('sends earlier tool calls and their results in the wire form the API expects', async () => {
    fake.chat.push({ text: 'Done.' })
    await drain(
      llm().chat({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":1}' }] },
          { role: 'tool', toolCallId: 'call_1', name: 'lookup', content: '{"answer":2}' },
        ],
      }),
    )
    expect(fake.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"answer":2}' },
    ])
  })

  test('retries a 503 and reports the failed attempt as a recoverable error', async () => {
    fake.chat.push({ failStatus: 503 }, { text: 'second time lucky' })
    const { events, errors } = await drain(llm().chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(errors.map((e) => [e.error.status, e.willRetry])).toEqual([[503, true]])
    expect(text(events)).toBe('second time lucky')
    expect(fake.requests.length).toBe(2)
  })

  test('a client error such as 400 is not retried', async () => {
    fake.chat.push({ failStatus: 400 }, { text: 'never sent' })
    const { events, errors } = await drain(llm().chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(events).toEqual([])
    expect(errors.map((e) => [e.error.kind, e.error.status, e.willRetry])).toEqual([['status', 400, false]])
    expect(fake.requests.length).toBe(1)
  })

  test('a provider that goes silent times out, is retried, and ends in one final timeout error', async () => {
    fake.chat.push({ hang: true }, { hang: true }, { hang: true })
    const started = performance.now()
    const { events, errors } = await drain(llm(60).chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(events).toEqual([])
    expect(errors.map((e) => [e.error.kind, e.willRetry])).toEqual([
      ['timeout', true],
      ['timeout', true],
      ['timeout', false],
    ])
    expect(performance.now() - started).toBeLessThan(2000)
  })

  test('a stream cut after text has been spoken is a final error, not a repeated reply', async () => {
    fake.chat.push({ text: 'one two three four', truncateAfter: 3 }, { text: 'must not be used' })
    const { events, errors } = await drain(llm().chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(text(events)).toBe('one two ')
    expect(errors.map((e) => [e.error.kind, e.willRetry])).toEqual([['protocol', false]])
    expect(fake.requests.length).toBe(1)
  })

  test('close() stops a streaming reply at once without an error event', async () => {
    fake.chat.push({ text: 'a long reply that keeps going and going and going' })
    fake.delays = { firstMs: 0, chunkMs: 20 }
    const stream = llm().chat({ messages: [{ role: 'user', content: 'hi' }] })
    const seen: string[] = []
    for await (const ev of stream) {
      seen.push(ev.type)
      if (ev.type === 'text') stream.close()
    }
    expect(seen).toEqual(['text'])
  })
})
