// Issue 44, watchdogs: each agent has a maximum call duration (maxDurationSec; null takes
// CALL_MAX_DURATION_MS). When it is reached the agent says the goodbye line, then hangs up:
// outcome max_duration. The caller is SIPp, which never hangs up by itself.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
const GOODBYE = 'We have reached the time limit of this call. Goodbye.'
let t: TestAppliance
let llm: FakeOpenAi

beforeAll(async () => {
  llm = startFakeOpenAi()
  // the appliance-wide limit is far away: only the agent's own can end the call
  t = await startTestAppliance({ CALL_MAX_DURATION_MS: 600_000, CALL_GOODBYE_MESSAGE: GOODBYE, LLM_PROVIDER: 'openai', LLM_BASE_URL: llm.url, LLM_API_KEY: 'test' })
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
})

test("an agent's maxDurationSec is null by default, takes 10-43200 whole seconds, and refuses anything else naming the field", async () => {
  const created = await t.api('POST', '/api/agents', { body: { name: 'Limits' } })
  expect(created.body.agent.maxDurationSec).toBeNull()
  const id = created.body.agent.id
  for (const bad of [9, 43_201, 60.5, '600', 'long']) {
    const res = await t.api('PATCH', `/api/agents/${id}`, { body: { maxDurationSec: bad } })
    expect(res.status).toBe(422)
    expect(JSON.stringify(res.body)).toContain('maxDurationSec')
  }
  expect((await t.api('GET', `/api/agents/${id}`)).body.agent.maxDurationSec).toBeNull()
  expect((await t.api('PATCH', `/api/agents/${id}`, { body: { maxDurationSec: 43_200 } })).body.agent.maxDurationSec).toBe(43_200)
  expect((await t.api('PATCH', `/api/agents/${id}`, { body: { maxDurationSec: null } })).body.agent.maxDurationSec).toBeNull()
  // and the OpenAPI document shows it on the agent
  const spec = JSON.stringify((await t.api('GET', '/openapi/json', { key: null })).body)
  expect(spec).toContain('"maxDurationSec"')
  expect(spec).toContain('CALL_MAX_DURATION_MS')
})

test("the agent's maximum duration ends the call after the goodbye line is spoken: outcome max_duration, our BYE", async () => {
  const target = await setupCallTarget(t, { agent: { maxDurationSec: 10, welcome: { mode: 'agent_speaks_first', message: 'Hello.' } } })
  const scenario = scenarioFrom(join(FIXTURES, 'uac-vanish.xml'), { PCAP: join(SIPP_PCAP_DIR, 'g711a.pcap'), BYE_WITHIN_MS: '40000' })
  const args = ['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())]
  const run = await sipp(args, 60).exited
  expect(run.code, run.stderr + run.stdout.slice(-1000)).toBe(0)

  const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 20_000)
  expect(call).toMatchObject({ outcome: 'max_duration', endReason: 'max_duration' })
  expect(call.duration).toBeGreaterThanOrEqual(10)
  expect(call.duration).toBeLessThan(30)
  const last = call.transcript.at(-1)
  expect(last).toMatchObject({ role: 'agent', text: GOODBYE })
  expect(last.interrupted).toBeUndefined()
  // the goodbye is said at the limit, after the welcome
  expect(last.timestamp).toBeGreaterThanOrEqual(10)
}, 90_000)
