// Intent edges and conversation nodes on the appliance's one LLM, over each production adapter
// (built from the configuration as the appliance builds it) against a local fake of its API.
import { afterAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../../src/platform/config/index.ts'
import { workflowLlm } from '../../../src/realtime/voice/registry/index.ts'
import { parseIntentAnswer, testRun } from '../../../src/features/workflows/engine/index.ts'
import { startFakeAnthropic } from '../../fakes/anthropic.ts'
import { startFakeOpenAi } from '../../fakes/openai-chat-server.ts'
import { edge, graph, intent, kw, node, otherwise } from './graphs.ts'

/** A request as the model reads it, whatever the wire form. */
interface Asked {
  model: string
  system: string
  turns: { role: string; content: string }[]
}

/** The fakes' "model": intent questions answered by keyword, conversation turns by echoing; 'fail' is an outage. */
type Model = (a: Asked) => string | 'fail'

function usual(a: Asked): string {
  const last = a.turns.at(-1)?.content ?? ''
  if (a.system.startsWith('You classify')) {
    if (/refund|money back/i.test(last)) return a.system.includes('1. wants a refund') ? '1' : '0'
    if (/agent|person|human/i.test(last)) return 'The answer is 2.'
    return '0'
  }
  return `Sure, I can help with "${last}".`
}

const openAiFake = startFakeOpenAi(() => '')
const anthropicFake = startFakeAnthropic()
afterAll(async () => {
  anthropicFake.stop()
  await openAiFake.stop()
})

const common = { PROVIDER_MAX_RETRIES: 1 }
const backends = [
  {
    name: 'OpenAI-compatible',
    model: 'gpt-test',
    llm: workflowLlm(loadConfig({}, { ...common, LLM_PROVIDER: 'openai', LLM_BASE_URL: openAiFake.baseUrl, LLM_API_KEY: openAiFake.apiKey, LLM_WORKFLOW_MODEL: 'gpt-test' })),
    failure: 'HTTP 503',
    requests: (): Asked[] =>
      openAiFake.requests.map((r) => ({ model: r.model, system: r.messages[0]?.role === 'system' ? r.messages[0].content : '', turns: r.messages.filter((m) => m.role !== 'system') })),
    clear: () => void (openAiFake.requests.length = 0),
    answer(model: Model) {
      openAiFake.answer = (r) => {
        const out = model(this.requests().at(-1)!)
        return out === 'fail' ? { status: 503, message: 'overloaded' } : out
      }
    },
  },
  {
    name: 'Anthropic',
    model: 'claude-test',
    llm: workflowLlm(loadConfig({}, { ...common, LLM_PROVIDER: 'anthropic', LLM_ANTHROPIC_BASE_URL: anthropicFake.url, LLM_ANTHROPIC_API_KEY: 'ak', LLM_WORKFLOW_MODEL: 'claude-test' })),
    failure: 'HTTP 529',
    requests: (): Asked[] =>
      anthropicFake.requests.map(({ body }) => ({
        model: body.model,
        system: body.system ?? '',
        turns: body.messages.map((m: any) => ({ role: m.role, content: m.content.map((b: any) => b.text).join('') })),
      })),
    clear: () => void (anthropicFake.requests.length = 0),
    answer(model: Model) {
      anthropicFake.answer = () => {
        const out = model(this.requests().at(-1)!)
        return out === 'fail' ? { failStatus: 529, body: 'overloaded' } : { text: out }
      }
    },
  },
]

test('intent answers are read as a 1-based number; 0, junk and out-of-range mean none', () => {
  expect([parseIntentAnswer('2', 3), parseIntentAnswer('Intent 1.', 3), parseIntentAnswer('0', 3), parseIntentAnswer('none', 3), parseIntentAnswer('7', 3)]).toEqual([1, 0, null, null, null])
})

describe.each(backends)('LLM-judged branches and conversation nodes over the $name adapter', (b) => {
  const support = graph(
    [
      node('start', 'start', { text: 'How can I help you today?' }),
      node('refunds', 'transfer', { target: 'sip:refunds@pbx.example' }),
      node('human', 'transfer', { target: '+14155553333' }),
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
  const opts = () => ({ maxVisits: 5, today: () => '2026-11-21', llm: b.llm, variables: { company: 'Acme' } })
  const run = (...said: string[]) => testRun(support, said.map((content) => ({ role: 'user' as const, content })), opts())

  test("the LLM judges the caller's words with the configured workflow model, and its intent picks the branch", async () => {
    b.answer(usual)
    b.clear()
    expect(await run('I would like my money back')).toMatchObject({ path: ['start', 'refunds'], finalNode: 'refunds', finalAction: 'transfer' })
    const [asked, ...more] = b.requests()
    expect(more).toEqual([])
    expect(asked!.model).toBe(b.model)
    expect(asked!.system).toContain('1. wants a refund\n2. wants to speak to a person')
    expect(asked!.turns.at(-1)!.content).toContain("Caller's last message: I would like my money back")
  })

  test('the second intent is chosen when the LLM names it', async () => {
    b.answer(usual)
    expect((await run('put me through to a human')).finalNode).toBe('human')
  })

  test('when the LLM sees no intent the else edge leads into a conversation turn on the node\'s instructions and the talk so far', async () => {
    b.answer(usual)
    b.clear()
    const r = await run('what are your opening hours', 'great, thanks')
    expect(r.path).toEqual(['start', 'chat', 'bye'])
    expect(r.responses.map((x) => x.output)).toEqual(['How can I help you today?', 'Sure, I can help with "what are your opening hours".', 'Goodbye.'])
    const turn = b.requests().find((q) => !q.system.startsWith('You classify'))!
    expect(turn.system).toBe('You are the help desk of Acme. Be brief.')
    expect(turn.turns).toEqual([
      { role: 'assistant', content: 'How can I help you today?' },
      { role: 'user', content: 'what are your opening hours' },
    ])
  })

  test('a keyword edge listed first is decided locally, without an LLM request', async () => {
    b.clear()
    expect((await run('goodbye')).finalNode).toBe('bye')
    expect(b.requests()).toHaveLength(0)
  })

  test('an empty conversation reply is an LLM failure naming the node, not silence', async () => {
    b.answer((a) => (a.system.startsWith('You classify') ? '0' : ''))
    const err = await run('hmm').catch((e) => e)
    expect(err).toMatchObject({ reason: 'llm_failed', nodeId: 'chat', message: 'LLM reply for conversation node "chat" was empty' })
  })

  test('an LLM outage ends the run with an error naming the node, the edge and the status', async () => {
    b.answer(() => 'fail')
    const err = await run('refund please').catch((e) => e)
    expect(err).toMatchObject({ reason: 'llm_failed', nodeId: 'start', edgeId: 'refund' })
    expect(err.message).toContain(b.failure)
  })
})

test('a model that never answers is given up after LLM_WORKFLOW_TIMEOUT_MS', async () => {
  const llm = workflowLlm(loadConfig({}, { LLM_PROVIDER: 'anthropic', LLM_ANTHROPIC_BASE_URL: anthropicFake.url, LLM_ANTHROPIC_API_KEY: 'ak', LLM_WORKFLOW_TIMEOUT_MS: 150 }))
  anthropicFake.plan.push({ hang: true })
  const g = graph([node('start', 'start'), node('chat', 'conversation', { instructions: 'Chat.' }), node('e', 'end')], [edge('start', 'chat'), edge('chat', 'e')])
  const err = await testRun(g, [{ role: 'user', content: 'hello' }], { maxVisits: 5, today: () => '2026-11-21', llm }).catch((e) => e)
  expect(err).toMatchObject({ reason: 'llm_failed', nodeId: 'chat' })
  expect(err.message).toContain('no answer within 150 ms')
})
