// A run places each case as a real SIP call from the built-in test phone to the agent, over
// loopback through the appliance's SIP stack, media engine and voice stack; each result links
// the call record (type test, with a recording) and a broken workflow fails the right case with
// a reason a person can read.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { untilAsync } from '../../helpers/until.ts'
import { runCli } from '../../../src/app/cli/index.ts'
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts'

let t: TestAppliance
let rx: Receiver
const logs: any[] = []
beforeAll(async () => {
  rx = startReceiver()
  t = await startTestAppliance({ LLM_PROVIDER: 'none', STT_PROVIDER: 'none', LOG_LEVEL: 'info', WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE: true, BACKGROUND_POLL_MS: 25 }, undefined, {
    write: (chunk) => {
      for (const line of chunk.split('\n')) if (line) logs.push(JSON.parse(line))
    },
  })
})
afterAll(async () => {
  await t?.stop()
  await rx?.stop()
})

const DESK = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Welcome to the test desk. Press 1 for our hours, or 2 to leave.' } },
    { id: 'hours', type: 'say', config: { text: 'We are open from nine to five.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [
    { from: 'start', to: 'hours', condition: { type: 'dtmf', digits: '1' } },
    { from: 'start', to: 'bye', condition: { type: 'dtmf', digits: '2' } },
    { from: 'hours', to: 'bye' },
  ],
}

const HOURS_CASE = {
  name: 'hours by key',
  caller: { turns: [{ type: 'keys', digits: '1' }] },
  expectations: [
    { type: 'said', phrase: 'open from nine to five', turn: 1 },
    { type: 'path', nodes: ['start', 'hours', 'bye'] },
    { type: 'ended', outcome: 'completed' },
  ],
}
const LEAVE_CASE = { name: 'leave by key', caller: { turns: [{ type: 'keys', digits: '2' }] }, expectations: [{ type: 'path', nodes: ['start', 'bye'] }, { type: 'said', phrase: 'goodbye' }] }

async function runToEnd(agentId: string): Promise<any> {
  const started = await t.api('POST', `/api/agents/${agentId}/tests/run`, { body: {} })
  expect(started.status, JSON.stringify(started.body)).toBe(200)
  expect(started.body.run.status).toBe('running')
  let run: any
  await untilAsync(async () => {
    const r = await t.api("GET", `/api/agents/${agentId}/tests/runs/${started.body.run.id}`)
    if (r.status !== 200) throw new Error(JSON.stringify(r.body))
    return (run = r.body.run).status !== "running"
  }, 90_000, "the run to finish", 250)
  return run
}

test('each case is a real SIP call of type test with a recording; a broken workflow fails the right case and says why', async () => {
  const agentId = (await t.api('POST', '/api/agents', { body: { name: 'Desk' } })).body.agent.id
  expect((await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: DESK })).status).toBe(200)
  const hours = (await t.api('POST', `/api/agents/${agentId}/tests`, { body: HOURS_CASE })).body.test
  const leave = (await t.api('POST', `/api/agents/${agentId}/tests`, { body: LEAVE_CASE })).body.test

  const run = await runToEnd(agentId)
  expect(run, JSON.stringify(run, null, 1)).toMatchObject({ status: 'passed', total: 2, passed: 2, failed: 0, version: 'published' })
  expect(run.results.map((r: any) => [r.testId, r.status])).toEqual([[hours.id, 'passed'], [leave.id, 'passed']])

  // the call went through the SIP stack (an INVITE the user agent answered) and the media engine (a recording)
  const callId = run.results[0].callId
  const call = (await t.api('GET', `/api/calls/${callId}`)).body.call ?? (await t.api('GET', `/api/calls/${callId}`)).body
  expect(call).toMatchObject({ type: 'test', status: 'ended', outcome: 'completed' })
  expect(call.cost.telephony).toBe(0)
  expect(call.transcript.filter((i: any) => i.role === 'user').map((i: any) => i.text)).toEqual(['[DTMF] 1'])
  const row = await t.appliance.database.db.selectFrom('calls').selectAll().where('id', '=', callId).executeTakeFirstOrThrow()
  expect(row.sip_call_id).toBeTruthy()
  expect(row.recording_path).toBeTruthy()
  await untilAsync(async () => existsSync(join(t.dataDir, 'recordings', `${callId}.wav`)) || (await t.api('GET', `/api/calls/${callId}/recording`)).status === 200, 15_000, "the recording", 250)
  expect(logs.some((l) => l.callId === callId && l.event === 'call_answer')).toBe(true)
  // test calls stay out of the call listing unless asked for
  expect((await t.api('GET', '/api/calls?limit=100')).body.calls.map((c: any) => c.id)).not.toContain(callId)
  expect((await t.api('GET', '/api/calls?type=test&limit=100')).body.calls.map((c: any) => c.id)).toContain(callId)

  // key 1 now leads straight to the end: the hours case fails, naming the line and the path; the other still passes
  const broken = { ...DESK, edges: [{ from: 'start', to: 'bye', condition: { type: 'dtmf', digits: '1' } }, { from: 'start', to: 'hours', condition: { type: 'dtmf', digits: '3' } }, { from: 'hours', to: 'bye' }] }
  const leaveBroken = { ...broken, edges: [...broken.edges, { from: 'start', to: 'bye', condition: { type: 'dtmf', digits: '2' } }] }
  expect((await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: leaveBroken })).status).toBe(200)
  const second = await runToEnd(agentId)
  expect(second).toMatchObject({ status: 'failed', passed: 1, failed: 1 })
  const failed = second.results[0]
  expect(failed).toMatchObject({ testId: hours.id, status: 'failed' })
  expect(failed.verdicts.filter((v: any) => !v.passed).map((v: any) => v.type)).toEqual(['said', 'path'])
  expect(failed.verdicts[0].reason).toContain('expected the agent to say "open from nine to five" at turn 1; turn 1 was "Goodbye."')
  expect(failed.verdicts[1].reason).toBe("expected the path start > hours > bye; the agent's lines came from start > bye")
  expect(second.results[1]).toMatchObject({ testId: leave.id, status: 'passed' })

  const listed = (await t.api('GET', `/api/agents/${agentId}/tests/runs`)).body.runs
  expect(listed.map((r: any) => r.id)).toEqual([second.id, run.id])

  // the CLI for CI: a line per case, naming what failed, and exit 1
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(['test-agent', agentId, '--url', t.url], { VOICE_AGENT_API_KEY: t.adminKey }, { out: (l) => out.push(l), err: (l) => err.push(l) })
  expect(code, err.join('\n')).toBe(1)
  expect(out[0]).toStartWith('failed\thours by key\texpectations[0] said: expected the agent to say "open from nine to five" at turn 1')
  expect(out[1]).toStartWith('pass\tleave by key')
  expect(out.at(-1)).toBe('# failed: 1 of 2 passed')
  expect((await t.api('GET', `/api/agents/${agentId}/tests/runs`)).body.runs).toHaveLength(3)
}, 240_000)

test('the CLI exits 0 when every case passed, and 2 without an API key; the agent\'s webhook gets agent.tests.completed', async () => {
  const agentId = (await t.api('POST', '/api/agents', { body: { name: 'Desk 2', webhookUrl: rx.url } })).body.agent.id
  expect((await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: DESK })).status).toBe(200)
  await t.api('POST', `/api/agents/${agentId}/tests`, { body: LEAVE_CASE })
  const out: string[] = []
  const err: string[] = []
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }
  expect(await runCli(['test-agent', agentId, '--url', t.url], {}, io)).toBe(2)
  expect(err.at(-1)).toContain('VOICE_AGENT_API_KEY')
  expect(await runCli(['test-agent', agentId, '--url', t.url, '--draft'], { VOICE_AGENT_API_KEY: t.adminKey }, io), err.join('\n')).toBe(0)
  expect(out.at(-1)).toBe('# passed: 1 of 1 passed')
  expect(err.at(-1)).toContain('(draft)')
  const draftCall = (await t.appliance.database.db.selectFrom('calls').select(['test_draft']).where('type', '=', 'test').where('agent_id', '=', agentId).executeTakeFirstOrThrow())
  expect(draftCall.test_draft).toBe('true')
  const completed = () => rx.received.map((r) => JSON.parse(r.body)).find((b) => b.type === 'agent.tests.completed')
  await untilAsync(async () => completed() !== undefined, 15_000, 'the agent.tests.completed webhook', 50)
  expect(completed().data.run).toMatchObject({ agentId, status: 'passed', version: 'draft', total: 1, passed: 1, results: [expect.objectContaining({ name: 'leave by key', status: 'passed' })] })
}, 120_000)
