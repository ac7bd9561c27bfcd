import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { apiClient, memberKey, startTestAppliance, type Api, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
let other: Api
let memberApiKey: string
beforeAll(async () => {
  t = await startTestAppliance()
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
  other = apiClient(t.url, ws.body.apiKey.key)
  memberApiKey = (await memberKey(t, 'patcher@example.com', 'member')).key
})
afterAll(() => t.stop())

const newAgent = async (body: Record<string, unknown> = {}) => {
  const r = await t.api('POST', '/api/agents', { body: { name: 'Patch me', ...body } })
  expect(r.status).toBe(200)
  return r.body.agent
}

describe('PATCH /api/agents/{id}', () => {
  test('changes only the fields in the body (was 404 before PATCH existed)', async () => {
    const a = await newAgent({ promptDraft: 'keep me', language: 'de-DE' })
    const r = await t.api('PATCH', `/api/agents/${a.id}`, { body: { name: 'Patched' } })
    expect(r.status).toBe(200)
    expect(r.body.agent).toMatchObject({ id: a.id, name: 'Patched', promptDraft: 'keep me', language: 'de-DE', version: a.version + 1 })
    expect((await t.api('GET', `/api/agents/${a.id}`)).body.agent.name).toBe('Patched')
  })

  test('merges welcome and voice member by member, where PUT replaces them whole', async () => {
    const welcome = { mode: 'agent_speaks_first', message: 'Hello there', interruptible: false, delayMs: 400 }
    const a = await newAgent({ welcome, voice: { provider: 'openai', voiceId: 'nova', speed: 1.3 } })
    const p = await t.api('PATCH', `/api/agents/${a.id}`, { body: { welcome: { delayMs: 100 }, voice: { speed: 0.9 } } })
    expect(p.status).toBe(200)
    expect(p.body.agent.welcome).toEqual({ ...welcome, delayMs: 100 })
    expect(p.body.agent.voice).toEqual({ provider: 'openai', voiceId: 'nova', speed: 0.9 })

    const put = await t.api('PUT', `/api/agents/${a.id}`, { body: { voice: { speed: 0.9 } } })
    expect(put.body.agent.voice).toMatchObject({ provider: 'flite', speed: 0.9 })
    expect(put.body.agent.voice.voiceId).not.toBe('nova')
  })

  test('a new voice provider without a voiceId takes that provider\'s default voice', async () => {
    const a = await newAgent({ voice: { provider: 'openai', voiceId: 'nova', speed: 1.2 } })
    const defaults = (await newAgent()).voice
    const p = await t.api('PATCH', `/api/agents/${a.id}`, { body: { voice: { provider: defaults.provider } } })
    expect(p.status).toBe(200)
    expect(p.body.agent.voice).toEqual({ ...defaults, speed: 1.2 })
  })

  test('validates the agent as it would be after the change, like PUT, and changes nothing on 422', async () => {
    const a = await newAgent()
    const bad = await t.api('PATCH', `/api/agents/${a.id}`, { body: { welcome: { mode: 'agent_speaks_first' }, name: 'Renamed' } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details.fields.map((f: { path: string }) => f.path)).toEqual(['welcome.message'])
    const schema = await t.api('PATCH', `/api/agents/${a.id}`, { body: { name: '', voice: { speed: 9 } } })
    expect(schema.status).toBe(422)
    expect(schema.body.error.requestId).toBeString()
    expect(JSON.stringify(schema.body)).not.toContain('    at ')
    const tool = await t.api('PATCH', `/api/agents/${a.id}`, { body: { enabledTools: ['transfer_call'] } })
    expect(tool.status).toBe(422)
    const after = (await t.api('GET', `/api/agents/${a.id}`)).body.agent
    expect(after).toMatchObject({ name: 'Patch me', version: a.version, enabledTools: [] })
  })

  test('a member and an admin may patch (agents:write, as PUT); no key is 401', async () => {
    const a = await newAgent()
    const byMember = await t.api('PATCH', `/api/agents/${a.id}`, { key: memberApiKey, body: { role: 'sales' } })
    expect(byMember.status).toBe(200)
    expect(byMember.body.agent.role).toBe('sales')
    const byAdmin = await t.api('PATCH', `/api/agents/${a.id}`, { body: { role: 'booking' } })
    expect(byAdmin.status).toBe(200)
    expect((await t.api('PATCH', `/api/agents/${a.id}`, { key: null, body: { role: 'sales' } })).status).toBe(401)
    const spec = (await t.api('GET', '/openapi/json', { key: null })).body
    const path = Object.keys(spec.paths).find((k) => k.startsWith('/api/agents/{') && !k.slice(12).includes('/'))!
    expect(spec.paths[path].patch['x-permission']).toBe(spec.paths[path].put['x-permission'])
    expect(spec.paths[path].patch['x-permission']).toBe('agents:write')
  })

  test("another workspace's agent is 404 and stays unchanged", async () => {
    const a = await newAgent()
    const r = await other('PATCH', `/api/agents/${a.id}`, { body: { name: 'Stolen' } })
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_found')
    expect((await t.api('GET', `/api/agents/${a.id}`)).body.agent.name).toBe('Patch me')
    expect((await t.api('PATCH', '/api/agents/ag_doesnotexist', { body: { name: 'x' } })).status).toBe(404)
  })
})
