import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { testRun } from '../../../src/workflows/engine/index.ts'
import { LlmError, OpenAiChatClient, openAiWorkflowLlm, parseIntentAnswer } from '../../../src/workflows/llm/index.ts'
import { type ChatRequest, type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai-chat-server.ts'
import { edge, graph, intent, kw, node, otherwise } from './graphs.ts'

let fake: FakeOpenAi
let client: OpenAiChatClient

/** The fake's "model": answers intent questions by keyword, conversation turns by echoing. */
function model(req: ChatRequest) {
  const system = req.messages[0]?.content ?? ''
  const last = req.messages.at(-1)?.content ?? ''
  if (system.startsWith('You classify')) {
    if (/refund|money back/i.test(last)) return system.includes('1. wants a refund') ? '1' : '0'
    if (/agent|person|human/i.test(last)) return 'The answer is 2.'
    return '0'
  }
  return `Sure, I can help with "${last}".`
}

beforeAll(() => {
  fake = startFakeOpenAi(model)
  client = new OpenAiChatClient({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, model: 'gpt-test', timeoutMs: 5000 })
})
afterAll(() => fake.stop())

describe('OpenAI chat-completions client against a local fake', () => {
  test('a JSON completion returns the first choice and sends model, messages and temperature', async () => {
    fake.requests.length = 0
    const text = await client.complete([{ role: 'user', content: 'hello' }])
    expect(text).toBe('Sure, I can help with "hello".')
    expect(fake.requests[0]).toMatchObject({ model: 'gpt-test', stream: false, temperature: 0, messages: [{ role: 'user', content: 'hello' }] })
  })

  test('a streamed completion yields the deltas of the SSE events in order', async () => {
    const deltas: string[] = []
    for await (const d of client.stream([{ role: 'user', content: 'stream me' }])) deltas.push(d)
    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas.join('')).toBe('Sure, I can help with "stream me".')
  })

  test('a wrong API key gives an LlmError with the status and the server\'s message', async () => {
    const bad = new OpenAiChatClient({ baseUrl: fake.baseUrl, apiKey: 'sk-wrong', model: 'm', timeoutMs: 5000 })
    const err = await bad.complete([{ role: 'user', content: 'x' }]).catch((e) => e)
    expect(err).toBeInstanceOf(LlmError)
    expect(err).toMatchObject({ status: 401, message: 'LLM answered HTTP 401: Incorrect API key provided' })
  })

  test('an error event inside the stream ends it with an LlmError', async () => {
    const prev = fake.answer
    fake.answer = () => ({ streamError: 'model overloaded' })
    try {
      const err = await (async () => {
        for await (const _ of client.stream([{ role: 'user', content: 'x' }])) {
        }
      })().catch((e) => e)
      expect(err).toMatchObject({ message: 'LLM stream error: model overloaded' })
    } finally {
      fake.answer = prev
    }
  })

  test('an unreachable server gives an LlmError, not a crash', async () => {
    const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
    const port = probe.port
    await probe.stop(true)
    const gone = new OpenAiChatClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 5000 })
    const err = await gone.complete([{ role: 'user', content: 'x' }]).catch((e) => e)
    expect(err).toBeInstanceOf(LlmError)
    expect(err.message).toStartWith('cannot reach the LLM')
  })

  test('a server that never answers is abandoned after timeoutMs', async () => {
    let release = () => {}
    const held = new Promise<void>((r) => (release = r))
    const slow = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async () => (await held, new Response('{}')) })
    const c = new OpenAiChatClient({ baseUrl: `http://127.0.0.1:${slow.port}/v1`, model: 'm', timeoutMs: 150 })
    const err = await c.complete([{ role: 'user', content: 'x' }]).catch((e) => e)
    release()
    await slow.stop(true)
    expect(err).toMatchObject({ message: 'no answer within 150 ms' })
  })

  test('intent answers are read as a 1-based number; 0, junk and out-of-range mean none', () => {
    expect([parseIntentAnswer('2', 3), parseIntentAnswer('Intent 1.', 3), parseIntentAnswer('0', 3), parseIntentAnswer('none', 3), parseIntentAnswer('7', 3)]).toEqual([1, 0, null, null, null])
  })
})

describe('LLM-judged branches and conversation nodes in the engine', () => {
  const support = graph(
    [
      node('start', 'start', { text: 'How can I help you today?' }),
      node('refunds', 'transfer', { target: 'sip:refunds@pbx.example' }),
      node('human', 'transfer', { target: '+15550003333' }),
      node('chat', 'conversation', { instructions: 'You are the help desk of {{company}}. Be brief.' }),
      node('bye', 'end', { text: 'Goodbye.' }),
    ],
    [
      edge('start', 'bye', kw('goodbye')),
      edge('start', 'refunds', intent('wants a refund'), 'refund'),
      edge('start', 'human', intent('wants to speak to a person'), 'person'),
      edge('start', 'chat', otherwise),
      edge('chat', 'bye', kw('bye', 'thanks')),
    ],
  )
  const opts = () => ({ maxVisits: 5, today: () => '2026-11-21', llm: openAiWorkflowLlm(client), variables: { company: 'Acme' } })

  test('the LLM judges the caller\'s words and its intent picks the branch', async () => {
    fake.requests.length = 0
    const r = await testRun(support, [{ role: 'user', content: 'I would like my money back' }], opts())
    expect(r).toMatchObject({ path: ['start', 'refunds'], finalNode: 'refunds', finalAction: 'transfer' })
    expect(fake.requests).toHaveLength(1)
    const system = fake.requests[0]?.messages[0]?.content ?? ''
    expect(system).toContain('1. wants a refund\n2. wants to speak to a person')
    expect(fake.requests[0]?.messages[1]?.content).toContain("Caller's last message: I would like my money back")
  })

  test('the second intent is chosen when the LLM names it', async () => {
    const r = await testRun(support, [{ role: 'user', content: 'put me through to a human' }], opts())
    expect(r.finalNode).toBe('human')
  })

  test('when the LLM sees no intent the else edge leads into a streamed conversation turn', async () => {
    fake.requests.length = 0
    const r = await testRun(support, [{ role: 'user', content: 'what are your opening hours' }, { role: 'user', content: 'great, thanks' }], opts())
    expect(r.path).toEqual(['start', 'chat', 'bye'])
    expect(r.responses.map((x) => x.output)).toEqual(['How can I help you today?', 'Sure, I can help with "what are your opening hours".', 'Goodbye.'])
    const turn = fake.requests.find((q) => q.stream === true)
    expect(turn?.messages[0]).toEqual({ role: 'system', content: 'You are the help desk of Acme. Be brief.' })
    expect(turn?.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'How can I help you today?' },
      { role: 'user', content: 'what are your opening hours' },
    ])
  })

  test('a keyword edge listed first is decided locally, without an LLM request', async () => {
    fake.requests.length = 0
    const r = await testRun(support, [{ role: 'user', content: 'goodbye' }], opts())
    expect(r.finalNode).toBe('bye')
    expect(fake.requests).toHaveLength(0)
  })

  test('an LLM failure ends the run with an error naming the node and the edge', async () => {
    const prev = fake.answer
    fake.answer = () => ({ status: 503, message: 'overloaded' })
    try {
      const err = await testRun(support, [{ role: 'user', content: 'refund please' }], opts()).catch((e) => e)
      expect(err).toMatchObject({ reason: 'llm_failed', nodeId: 'start', edgeId: 'refund' })
      expect(err.message).toContain('LLM answered HTTP 503: overloaded')
    } finally {
      fake.answer = prev
    }
  })
})
