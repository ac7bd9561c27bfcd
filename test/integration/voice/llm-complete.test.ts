// `complete` of both production adapters against local fakes speaking their wire protocols: a
// whole answer as text, or structured JSON asked for the way each API takes it.
import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import { ProviderError } from '../../../src/realtime/voice/base.ts'
import { AnthropicLlm, JSON_INSTRUCTION, OpenAiLlm } from '../../../src/realtime/voice/llm/index.ts'
import { startFakeAnthropic } from '../../fakes/anthropic.ts'
import { startFakeOpenAi } from '../../fakes/openai.ts'

const conn = { maxRetries: 1, timeoutMs: 2000, retryIntervalMs: 1 }
const openai = startFakeOpenAi()
const anthropic = startFakeAnthropic()
afterAll(() => {
  openai.stop()
  anthropic.stop()
})
beforeEach(() => {
  openai.requests.length = 0
  openai.chat.length = 0
  openai.structured.length = 0
  anthropic.requests.length = 0
  anthropic.plan.length = 0
})

const gpt = () => new OpenAiLlm({ baseUrl: openai.url, apiKey: 'sk-test', model: 'gpt-test', conn })
const claude = () => new AnthropicLlm({ baseUrl: anthropic.url, apiKey: 'ak-test', model: 'claude-test', conn })
const verdict = { type: 'object', additionalProperties: false, required: ['verdict'], properties: { verdict: { type: 'string', enum: ['yes', 'no'] } } }
const ask = [
  { role: 'system' as const, content: 'You judge calls.' },
  { role: 'user' as const, content: 'Was the caller helped?' },
]

describe('complete() on the OpenAI-compatible adapter', () => {
  test('a schema is asked for as a strict json_schema response format and its JSON comes back parsed, with usage', async () => {
    openai.structured.push({ text: '{"verdict":"yes"}', usage: { prompt: 30, completion: 4 } })
    const answer = await gpt().complete(ask, { schema: { name: 'verdict', schema: verdict }, model: 'gpt-other' })
    expect(answer).toEqual({ text: '{"verdict":"yes"}', value: { verdict: 'yes' }, model: 'gpt-other', inputTokens: 30, outputTokens: 4, finishReason: 'stop' })
    expect(openai.requests[0]!.body).toMatchObject({
      model: 'gpt-other',
      temperature: 0,
      stream: true,
      messages: ask,
      response_format: { type: 'json_schema', json_schema: { name: 'verdict', strict: true, schema: verdict } },
    })
  })

  test('JSON without a schema is json_object mode, with the instruction the mode requires', async () => {
    openai.chat.push({ text: '{"ok":true}' })
    const answer = await gpt().complete(ask, { json: true })
    expect(answer.value).toEqual({ ok: true })
    const body = openai.requests[0]!.body
    expect(body.response_format).toEqual({ type: 'json_object' })
    expect(body.messages[0]).toEqual({ role: 'system', content: `You judge calls.\n\n${JSON_INSTRUCTION}` })
  })

  test('a plain completion is the whole text, at temperature 0 unless told', async () => {
    openai.chat.push({ text: 'Yes, they were.' })
    const answer = await gpt().complete(ask, { maxTokens: 20 })
    expect(answer.text).toBe('Yes, they were.')
    expect(answer.value).toBeUndefined()
    expect(openai.requests[0]!.body).toMatchObject({ temperature: 0, max_tokens: 20 })
    expect(openai.requests[0]!.body.response_format).toBeUndefined()
  })

  test('a failure that outlasts the retries rejects with the provider error', async () => {
    openai.chat.push({ failStatus: 503 }, { failStatus: 503 })
    const err = await gpt().complete(ask).catch((e) => e)
    expect(err).toBeInstanceOf(ProviderError)
    expect(err).toMatchObject({ kind: 'status', status: 503 })
    expect(openai.requests.length).toBe(2)
  })

  test('timeoutMs bounds the whole request: a silent server is given up', async () => {
    openai.chat.push({ hang: true })
    const err = await gpt().complete(ask, { timeoutMs: 150 }).catch((e) => e)
    expect(err).toMatchObject({ kind: 'timeout', message: 'openai-llm: no answer within 150 ms' })
  })
})

describe('complete() on the Anthropic adapter', () => {
  test('a schema is asked for as a forced tool whose input is the answer', async () => {
    anthropic.plan.push({ toolUses: [{ name: 'verdict', input: { verdict: 'no' } }], usage: { input: 50, output: 9 } })
    const answer = await claude().complete(ask, { schema: { name: 'verdict', schema: verdict, description: 'The verdict.' } })
    expect(answer).toMatchObject({ value: { verdict: 'no' }, model: 'claude-test', inputTokens: 50, outputTokens: 9, finishReason: 'tool_calls' })
    expect(anthropic.requests[0]!.body).toMatchObject({
      model: 'claude-test',
      temperature: 0,
      system: 'You judge calls.',
      tools: [{ name: 'verdict', description: 'The verdict.', input_schema: verdict }],
      tool_choice: { type: 'tool', name: 'verdict' },
    })
  })

  test('JSON without a schema rests on the instruction; a fenced answer is read', async () => {
    anthropic.plan.push({ text: 'Here it is:\n```json\n{"ok": true}\n```' })
    const answer = await claude().complete(ask, { json: true, model: 'claude-other' })
    expect(answer.value).toEqual({ ok: true })
    const body = anthropic.requests[0]!.body
    expect(body.system).toBe(`You judge calls.\n\n${JSON_INSTRUCTION}`)
    expect(body.model).toBe('claude-other')
    expect(body.tool_choice).toBeUndefined()
  })

  test('an answer that is not the JSON asked for is a protocol error, not a value', async () => {
    anthropic.plan.push({ text: 'I would rather not say.' })
    const err = await claude().complete(ask, { json: true }).catch((e) => e)
    expect(err).toBeInstanceOf(ProviderError)
    expect(err.message).toStartWith('anthropic-llm: the answer is not the JSON asked for')
  })

  test('an overload that outlasts the retries rejects with the provider error', async () => {
    anthropic.plan.push({ failStatus: 529 }, { failStatus: 529 })
    const err = await claude().complete(ask).catch((e) => e)
    expect(err).toMatchObject({ kind: 'status', status: 529 })
  })
})
