// The post-call LLM analysis on an appliance whose language model is Anthropic (LLM_PROVIDER=
// anthropic, a local fake speaking the Messages API): the same structured analysis, automatic
// evaluation and cost as on an OpenAI-compatible server, asked for as a forced tool.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { DEFAULT_ANALYSIS_PROMPT } from '../../../src/features/calls/analysis/index.ts'
import { LLM_PRICES } from '../../../src/realtime/voice/registry/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { untilAsync } from '../../helpers/until.ts'
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.ts'

const criteria = [
  { name: 'greeting', description: 'greets the caller politely', weight: 1 },
  { name: 'resolution', description: "solves the caller's request", weight: 3 },
]
const transcript = [
  { role: 'agent' as const, text: 'Hello, Acme Dental. How can I help?', timestamp: 0.4 },
  { role: 'user' as const, text: 'I would like to book a cleaning on Friday.', timestamp: 3.2 },
  { role: 'agent' as const, text: 'Friday at ten is booked for you.', timestamp: 6.8 },
]
const analysed = {
  summary: 'The caller booked a cleaning for Friday at ten.',
  sentiment: 'positive',
  isVoicemail: false,
  scores: [{ name: 'greeting', score: 90, comment: 'warm' }, { name: 'resolution', score: 70, comment: 'booked' }],
}

let fake: FakeAnthropic
let t: TestAppliance
let agentId: string

beforeAll(async () => {
  fake = startFakeAnthropic()
  t = await startTestAppliance({ LLM_PROVIDER: 'anthropic', LLM_ANTHROPIC_BASE_URL: fake.url, LLM_ANTHROPIC_API_KEY: 'ak-test', BACKGROUND_POLL_MS: 50 })
  agentId = (await t.api('POST', '/api/agents', { body: { name: 'Reception' } })).body.agent.id
})
afterAll(async () => {
  await t?.stop()
  fake?.stop()
})
beforeEach(() => {
  fake.requests.length = 0
})

async function analyse(): Promise<any> {
  const id = await seedCall(t.appliance.database.db, { workspaceId: t.workspaceId, agentId, agentName: 'Reception', transcript })
  expect((await t.api('POST', `/api/calls/${id}/analysis`)).status).toBeLessThan(300)
  let doc: any
  await untilAsync(async () => (doc = (await t.api('GET', `/api/calls/${id}/export`)).body).analysis?.status === 'completed', 10_000, 'the analysis', 50)
  return doc
}

describe('call analysis with Anthropic as the LLM', () => {
  test('a call is analysed and evaluated by Claude through a forced tool, stored as the spec shows and costed at its price', async () => {
    expect((await t.api('PUT', `/api/agents/${agentId}/analysis-settings`, { body: { model: '', prompt: '', evaluationCriteria: criteria } })).status).toBe(200)
    fake.plan.push({ toolUses: [{ name: 'call_analysis', input: analysed }], usage: { input: 400, output: 60 } })
    const doc = await analyse()

    expect(fake.requests).toHaveLength(1)
    const sent = fake.requests[0]!
    expect(sent.headers.get('x-api-key')).toBe('ak-test')
    expect(sent.body).toMatchObject({ model: 'claude-3-5-haiku-latest', temperature: 0, tool_choice: { type: 'tool', name: 'call_analysis' } })
    expect(sent.body.tools[0].input_schema.required).toEqual(['summary', 'sentiment', 'isVoicemail', 'scores'])
    expect(sent.body.system).toStartWith(DEFAULT_ANALYSIS_PROMPT)
    expect(sent.body.system).toContain('2. resolution: solves the caller\'s request')
    expect(sent.body.messages[0].content[0].text).toContain('[3.2 s] Caller: I would like to book a cleaning on Friday.')

    expect(doc.analysis).toMatchObject({
      status: 'completed', summary: analysed.summary, sentiment: 'positive', isVoicemail: false,
      model: 'claude-3-5-haiku-latest', inputTokens: 400, outputTokens: 60,
    })
    const price = LLM_PRICES['claude-3-5-haiku-latest']!
    expect(doc.cost.analysis).toBeCloseTo((400 * price.inputPerMTok + 60 * price.outputPerMTok) / 1e6, 8)
    expect(doc.cost.total).toBeCloseTo(doc.cost.llm + doc.cost.tts + doc.cost.stt + doc.cost.telephony + doc.cost.analysis, 6)
    expect(doc.evaluations).toEqual([
      expect.objectContaining({ type: 'automatic', score: 75, evaluatorName: 'claude-3-5-haiku-latest', criteria: analysed.scores }),
    ])
  })

  test("the agent's analysis model is sent to Anthropic in place of the configured one", async () => {
    expect((await t.api('PUT', `/api/agents/${agentId}/analysis-settings`, { body: { model: 'claude-haiku-4-5', prompt: 'Judge briefly.', evaluationCriteria: [] } })).status).toBe(200)
    fake.plan.push({ toolUses: [{ name: 'call_analysis', input: { ...analysed, scores: [] } }] })
    const doc = await analyse()
    expect(fake.requests[0]!.body.model).toBe('claude-haiku-4-5')
    expect(fake.requests[0]!.body.system).toStartWith('Judge briefly.')
    expect(doc.analysis).toMatchObject({ status: 'completed', model: 'claude-haiku-4-5', summary: analysed.summary })
    expect(doc.evaluations.filter((e: any) => e.type === 'automatic')).toEqual([])
  })
})
