// tool_called is judged from the call record's tool calls: an LLM agent (a local server speaking
// OpenAI's wire protocol that reads its prompt as a model would) is called over real SIP from the
// test phone; the prompt asks for a tool, the record keeps the call with its arguments, and a
// prompt edit that drops the instruction fails the case expecting it, naming what was called.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { untilAsync } from '../../helpers/until.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'

let t: TestAppliance
let llm: FakeOpenAi
beforeAll(async () => {
  llm = startFakeOpenAi()
  // the model presses 42 when its prompt tells it to and the tool is offered, then hangs up
  llm.answer = (body) => {
    const messages = body.messages as { role: string; content?: string }[]
    const offered = ((body.tools ?? []) as { function: { name: string } }[]).map((x) => x.function.name)
    const end = { name: 'end_call', arguments: '{"message":"Goodbye."}' }
    if (messages.at(-1)?.role === 'tool') return { toolCalls: [end] }
    const asked = messages[0]?.content?.includes('press 42 with send_dtmf') && offered.includes('send_dtmf')
    return asked ? { text: 'One moment.', toolCalls: [{ name: 'send_dtmf', arguments: '{"digits":"42"}' }] } : { toolCalls: [end] }
  }
  t = await startTestAppliance({ LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test-key', TTS_PROVIDER: 'flite', STT_PROVIDER: 'none', BACKGROUND_POLL_MS: 25 })
})
afterAll(async () => {
  await t?.stop()
  llm?.stop()
})

const CASE = {
  name: 'presses 42 for the caller',
  caller: { turns: [{ type: 'keys', digits: '1' }] },
  expectations: [{ type: 'tool_called', tool: 'send_dtmf', arguments: { digits: '42' } }],
}

async function runToEnd(agentId: string): Promise<any> {
  const started = await t.api('POST', `/api/agents/${agentId}/tests/run`, { body: {} })
  expect(started.status, JSON.stringify(started.body)).toBe(200)
  let run: any
  await untilAsync(async () => (run = (await t.api('GET', `/api/agents/${agentId}/tests/runs/${started.body.run.id}`)).body.run).status !== 'running', 90_000, 'the run to finish', 250)
  return run
}

async function publishPrompt(agentId: string, prompt: string): Promise<void> {
  expect((await t.api('PATCH', `/api/agents/${agentId}`, { body: { promptDraft: prompt } })).status).toBe(200)
  expect((await t.api('POST', `/api/agents/${agentId}/publish`)).status).toBe(200)
}

test('the record keeps the tool call with its arguments; a prompt edit that drops the tool fails the case expecting it', async () => {
  const created = await t.api('POST', '/api/agents', { body: { name: 'Keys', enabledTools: ['send_dtmf'] } })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const agentId = created.body.agent.id
  await publishPrompt(agentId, 'You help callers. When the caller presses a key, press 42 with send_dtmf.')
  expect((await t.api('POST', `/api/agents/${agentId}/tests`, { body: CASE })).status).toBe(200)

  const run = await runToEnd(agentId)
  expect(run, JSON.stringify(run, null, 1)).toMatchObject({ status: 'passed', passed: 1 })
  const row = await t.appliance.database.db.selectFrom('calls').select(['tool_calls']).where('id', '=', run.results[0].callId).executeTakeFirstOrThrow()
  const calls = JSON.parse(row.tool_calls)
  expect(calls).toHaveLength(1)
  expect(calls[0]).toMatchObject({ name: 'send_dtmf', arguments: { digits: '42' } })
  expect(calls[0].at).toBeGreaterThan(0)
  const shown = (await t.api('GET', `/api/calls/${run.results[0].callId}`)).body.call
  expect(shown.toolCalls).toEqual(calls)

  await publishPrompt(agentId, 'You help callers.')
  const second = await runToEnd(agentId)
  expect(second).toMatchObject({ status: 'failed', failed: 1 })
  expect(second.results[0].verdicts[0]).toMatchObject({ type: 'tool_called', passed: false, reason: 'expected the agent to call send_dtmf; the tools it called: none' })
}, 240_000)
