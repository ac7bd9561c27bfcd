import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { drain } from '../../../src/realtime/voice/base.ts'
import { AnthropicLlm, type LlmEvent } from '../../../src/realtime/voice/llm/index.ts'
import { startFakeAnthropic } from '../../fakes/anthropic.ts'

const fake = startFakeAnthropic()
afterAll(() => fake.stop())
beforeEach(() => {
  fake.requests.length = 0
  fake.plan.length = 0
  fake.delays = { firstMs: 0, chunkMs: 0 }
})

const llm = () =>
  new AnthropicLlm({ baseUrl: fake.url, apiKey: 'ak-test', model: 'claude-test', conn: { maxRetries: 1, timeoutMs: 2000, retryIntervalMs: 1 } })
const text = (events: LlmEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('')

describe('Anthropic Messages streaming adapter', () => {
  test('streams text deltas and takes token counts from message_start and message_delta', async () => {
    fake.plan.push({ text: 'Sure, I can book that for you.', usage: { input: 120, output: 14 } })
    fake.delays = { firstMs: 3, chunkMs: 1 }
    const { events, errors } = await drain(llm().chat({ messages: [{ role: 'user', content: 'book it' }] }))
    expect(errors).toEqual([])
    expect(text(events)).toBe('Sure, I can book that for you.')
    expect(events.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 120, outputTokens: 14 },
      { type: 'done', finishReason: 'stop' },
    ])
    const sent = fake.requests[0]!
    expect(sent.headers.get('x-api-key')).toBe('ak-test')
    expect(sent.headers.get('anthropic-version')).toBe('2023-06-01')
    expect(sent.body).toMatchObject({ model: 'claude-test', stream: true, max_tokens: 1024 })
  })

  test('assembles a tool_use block from input_json_delta pieces', async () => {
    const input = { digits: '1234#', note: 'a "quoted" value' }
    fake.plan.push({ text: 'One moment.', toolUses: [{ name: 'send_dtmf', input }] })
    const tools = [{ name: 'send_dtmf', description: 'press keys', parameters: { type: 'object', properties: { digits: { type: 'string' } } } }]
    const { events } = await drain(llm().chat({ messages: [{ role: 'user', content: 'press it' }], tools }))
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []))
    expect(calls.length).toBe(1)
    expect(calls[0]!.name).toBe('send_dtmf')
    expect(JSON.parse(calls[0]!.arguments)).toEqual(input)
    expect(calls[0]!.id).toMatch(/^toolu_/)
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'tool_calls' })
    expect(fake.requests[0]!.body.tools).toEqual([{ name: 'send_dtmf', description: 'press keys', input_schema: tools[0]!.parameters }])
  })

  test('moves system prompts to `system` and sends tool results as one user turn of tool_result blocks', async () => {
    fake.plan.push({ text: 'ok' })
    await drain(
      llm().chat({
        messages: [
          { role: 'system', content: 'You are a receptionist.' },
          { role: 'user', content: 'weather and time?' },
          {
            role: 'assistant',
            content: 'Checking.',
            toolCalls: [
              { id: 't1', name: 'weather', arguments: '{"city":"Oslo"}' },
              { id: 't2', name: 'clock', arguments: '' },
            ],
          },
          { role: 'tool', toolCallId: 't1', name: 'weather', content: 'rain' },
          { role: 'tool', toolCallId: 't2', name: 'clock', content: '10:00' },
        ],
      }),
    )
    const body = fake.requests[0]!.body
    expect(body.system).toBe('You are a receptionist.')
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather and time?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 't2', name: 'clock', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'rain' },
          { type: 'tool_result', tool_use_id: 't2', content: '10:00' },
        ],
      },
    ])
  })

  test('an HTTP 529 overload is retried', async () => {
    fake.plan.push({ failStatus: 529 }, { text: 'back again' })
    const { events, errors } = await drain(llm().chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(errors.map((e) => [e.error.status, e.willRetry])).toEqual([[529, true]])
    expect(text(events)).toBe('back again')
  })

  test('an error event in the middle of the stream ends it with a final error after the text already sent', async () => {
    fake.plan.push({ text: 'partial answer', midStreamError: { type: 'overloaded_error', message: 'Overloaded' } }, { text: 'unused' })
    const { events, errors } = await drain(llm().chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(text(events)).toBe('partial ')
    expect(errors.length).toBe(1)
    expect(errors[0]!.error.message).toContain('overloaded_error')
    expect(errors[0]!.willRetry).toBe(false)
  })

  test('a stream that drops before any text is retried and the second reply is used whole', async () => {
    fake.plan.push({ text: 'first', truncateAfter: 2 }, { text: 'second reply' })
    const { events, errors } = await drain(llm().chat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(errors.map((e) => [e.error.kind, e.willRetry])).toEqual([['protocol', true]])
    expect(text(events)).toBe('second reply')
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' })
  })
})
