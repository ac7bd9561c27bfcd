// Readiness is visible before any call: what runs an agent's calls (its workflow, the LLM of
// its model, or nothing) and why not; values the appliance cannot serve are refused at save.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import { setupCallTarget } from '../helpers/calls.ts'

let offline: TestAppliance
let withLlm: TestAppliance
// the LLM endpoint is probed with a TCP connect: something must listen there for agents to converse
const llmPort = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })

beforeAll(async () => {
  offline = await startTestAppliance({ LLM_PROVIDER: 'auto' })
  withLlm = await startTestAppliance({ LLM_PROVIDER: 'openai', LLM_BASE_URL: `http://127.0.0.1:${llmPort.port}/v1`, LLM_MODEL: 'llama3.2', FLITE_VOICE: 'awb' })
})
afterAll(async () => {
  await offline?.stop()
  await withLlm?.stop()
  llmPort.stop(true)
})

describe('agent readiness', () => {
  test('an agent with no LLM and no workflow cannot converse, and says why', async () => {
    const r = await offline.api('POST', '/api/agents', { body: { name: 'Desk', promptPublished: 'You help callers.' } })
    expect(r.status).toBe(200)
    expect(r.body.agent.readiness).toMatchObject({ canConverse: false, brain: 'none' })
    expect(r.body.agent.readiness.problems.join(' ')).toContain('no LLM is configured')
    expect(r.body.agent.readiness.problems.join(' ')).toContain('no workflow')
    const got = await offline.api('GET', `/api/agents/${r.body.agent.id}`)
    expect(got.body.agent.readiness.canConverse).toBe(false)
  })

  test('the receptionist template creates an agent whose workflow converses offline', async () => {
    const r = await offline.api('POST', '/api/agents', { body: { name: 'Front desk', template: 'receptionist' } })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.agent.readiness).toEqual({ canConverse: true, brain: 'workflow', problems: [] })
    expect(r.body.agent.role).toBe('reception')
    const wf = await offline.api('GET', `/api/agents/${r.body.agent.id}/workflow`)
    expect(wf.status).toBe(200)
    expect(wf.body.workflow.nodes.map((n: any) => n.type)).toContain('start')
  })

  test('an unknown template is refused with 422 and creates nothing', async () => {
    const before = (await offline.api('GET', '/api/agents?limit=100')).body.agents.length
    const r = await offline.api('POST', '/api/agents', { body: { name: 'X', template: 'astronaut' } })
    expect(r.status).toBe(422)
    expect((await offline.api('GET', '/api/agents?limit=100')).body.agents.length).toBe(before)
  })

  test('config keys are the defaults of a new agent: with an OpenAI-compatible LLM it gets the configured model (and voice) and converses with it', async () => {
    const r = await withLlm.api('POST', '/api/agents', { body: { name: 'Chat' } })
    expect(r.body.agent.llmModel).toBe('openai-compatible/llama3.2')
    expect(r.body.agent.voice).toEqual({ provider: 'flite', voiceId: 'awb', speed: 1 })
    expect(r.body.agent.readiness).toEqual({ canConverse: true, brain: 'llm', problems: [] })
    const claude = await withLlm.api('PUT', `/api/agents/${r.body.agent.id}`, { body: { llmModel: 'claude-haiku-4-5' } })
    expect(claude.body.agent.readiness.canConverse).toBe(false)
    expect(claude.body.agent.readiness.problems[0]).toContain('LLM_ANTHROPIC_API_KEY')
  })

  test('a cloud voice without its key is a readiness problem, not a refusal (calls use the default voice)', async () => {
    const r = await withLlm.api('POST', '/api/agents', { body: { name: 'Cloud voice', voice: { provider: 'elevenlabs', voiceId: 'abc' } } })
    expect(r.status).toBe(200)
    expect(r.body.agent.readiness.canConverse).toBe(true)
    expect(r.body.agent.readiness.problems.join(' ')).toContain("'elevenlabs' has no API key")
  })

  test('an unknown flite voice or model is refused at save with 422 naming the field, and the agent is unchanged', async () => {
    const a = (await offline.api('POST', '/api/agents', { body: { name: 'Voice' } })).body.agent
    const voice = await offline.api('PUT', `/api/agents/${a.id}`, { body: { voice: { provider: 'flite', voiceId: 'hal9000' } } })
    expect(voice.status).toBe(422)
    expect(voice.body.error.details.fields).toEqual([expect.objectContaining({ path: 'voice.voiceId' })])
    expect(voice.body.error.details.fields[0].message).toContain('slt')
    const model = await offline.api('POST', '/api/agents', { body: { name: 'Model', llmModel: 'gpt-99' } })
    expect(model.status).toBe(422)
    expect(model.body.error.details.fields[0].path).toBe('llmModel')
    expect((await offline.api('GET', `/api/agents/${a.id}`)).body.agent.voice).toEqual(a.voice)
  })

  test('GET /api/providers says what this appliance can serve now', async () => {
    const r = await offline.api('GET', '/api/providers')
    const llm = Object.fromEntries(r.body.llm.map((p: any) => [p.id, p.available]))
    expect(llm).toMatchObject({ workflow: true, openai: false, anthropic: false })
    const voice = Object.fromEntries(r.body.voice.map((p: any) => [p.id, p.available]))
    expect(voice).toEqual({ flite: true, elevenlabs: false, openai: false })
    expect(r.body.voice.find((p: any) => p.id === 'flite').voices).toEqual(expect.arrayContaining(['slt', 'kal', 'awb', 'rms']))
    const on = await withLlm.api('GET', '/api/providers')
    expect(on.body.llm.find((p: any) => p.id === 'openai-compatible').available).toBe(true)
  })

  test("a number whose inbound agent cannot converse says so in its status detail; a workflow clears it", async () => {
    const target = await setupCallTarget(offline)
    const n = await offline.api('GET', `/api/phone-numbers/${target.numberId}`)
    expect(n.body.phoneNumber.statusDetail).toContain('the inbound agent cannot converse')
    const graph = { nodes: [{ id: 'start', type: 'start', config: { text: 'Hi.' } }, { id: 'bye', type: 'end', config: { text: 'Bye.' } }], edges: [{ from: 'start', to: 'bye' }] }
    expect((await offline.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })).status).toBe(200)
    const after = await offline.api('GET', `/api/phone-numbers/${target.numberId}`)
    expect(after.body.phoneNumber.statusDetail).toBeNull()
    const list = await offline.api('GET', '/api/phone-numbers')
    expect(list.body.phoneNumbers.find((p: any) => p.id === target.numberId).statusDetail).toBeNull()
  })
})
