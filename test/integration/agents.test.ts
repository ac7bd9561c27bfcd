import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { apiClient, memberKey, startTestAppliance, type Api, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
let other: Api
beforeAll(async () => {
  t = await startTestAppliance()
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
  other = apiClient(t.url, ws.body.apiKey.key)
})
afterAll(() => t.stop())

const fieldPaths = (body: any): string[] => body.error.details.fields.map((f: { path: string }) => f.path)

describe('agents', () => {
  test('create takes only a name and fills documented defaults', async () => {
    const r = await t.api('POST', '/api/agents', { body: { name: 'Reception' } })
    expect(r.status).toBe(200)
    expect(r.body.agent).toMatchObject({
      name: 'Reception',
      workspaceId: t.workspaceId,
      promptDraft: '',
      promptPublished: '',
      welcome: { mode: 'user_speaks_first', message: '', interruptible: true, delayMs: 0 },
      voice: { provider: 'flite', voiceId: 'kal16', speed: 1 },
      llmModel: 'gpt-4o-mini',
      language: 'en-US',
      enabledTools: [],
      toolConfigs: {},
      webhookUrl: '',
      agentType: 'inbound',
      role: 'reception',
      variables: [],
      version: 1,
      publishedAt: null,
    })
    expect(r.body.agent.id).toMatch(/^ag_/)
  })

  test('create stores every field and lists the {{variables}} of prompts and welcome', async () => {
    const body = {
      name: 'Sales',
      promptDraft: 'Sell to {{first_name}}',
      promptPublished: 'You call {{first_name}} about {{product}}',
      welcome: { mode: 'agent_speaks_first', message: 'Hello {{ first_name }}, {{greeting}}', interruptible: false, delayMs: 300 },
      voice: { provider: 'openai', voiceId: 'nova', speed: 1.2 },
      llmModel: 'openai-compatible/llama3.1:8b',
      language: 'de-de',
      enabledTools: ['end_call', 'transfer_call', 'send_dtmf', 'http_request'],
      toolConfigs: {
        transfer_call: { destinations: [{ number: '+14155550123', description: 'front desk' }] },
        http_request: { url: 'https://93.184.216.34/crm', description: 'look up the caller', method: 'GET' },
      },
      webhookUrl: 'https://93.184.216.34/hooks/calls',
      agentType: 'outbound',
      role: 'sales',
    }
    const r = await t.api('POST', '/api/agents', { body })
    expect(r.status).toBe(200)
    const a = r.body.agent
    expect(a).toMatchObject({ ...body, language: 'de-DE', toolConfigs: expect.any(Object) })
    expect(a.toolConfigs).toEqual({
      end_call: {},
      send_dtmf: { allowedDigits: '0123456789*#' },
      transfer_call: { destinations: [{ number: '+14155550123', description: 'front desk' }], mode: 'blind' },
      http_request: { url: 'https://93.184.216.34/crm', description: 'look up the caller', method: 'GET', headers: {}, timeoutMs: 5000 },
    })
    expect(a.variables).toEqual(['first_name', 'greeting', 'product'])
    expect(a.publishedAt).toEqual(a.createdAt)
    const got = await t.api('GET', `/api/agents/${a.id}`)
    expect(got.body).toEqual({ agent: a })
  })

  test('validation names each offending field path and creates nothing', async () => {
    const before = (await t.api('GET', '/api/agents?limit=100')).body.agents.length
    const r = await t.api('POST', '/api/agents', {
      body: {
        name: 'Bad',
        llmModel: 'gpt-99',
        voice: { provider: 'acme' },
        language: 'not a language!',
        welcome: { mode: 'agent_speaks_first' },
        enabledTools: ['end_call', 'teleport'],
        toolConfigs: { http_request: { url: 'https://93.184.216.34/x', description: 'x', method: 'BREW' }, transfer_call: { destinations: [] } },
      },
    })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('validation_failed')
    expect(fieldPaths(r.body).sort()).toEqual([
      'enabledTools[1]',
      'language',
      'llmModel',
      'toolConfigs.http_request.method',
      'toolConfigs.transfer_call.destinations',
      'voice.provider',
      'welcome.message',
    ])
    expect((await t.api('GET', '/api/agents?limit=100')).body.agents.length).toBe(before)
  })

  test('schema errors name nested paths: welcome.mode, voice.speed, agentType, role', async () => {
    const r = await t.api('POST', '/api/agents', {
      body: { name: 'X', welcome: { mode: 'shout' }, voice: { speed: 9 }, agentType: 'sideways', role: 'janitor' },
    })
    expect(r.status).toBe(422)
    expect(fieldPaths(r.body)).toEqual(expect.arrayContaining(['welcome.mode', 'voice.speed', 'agentType', 'role']))
    const noName = await t.api('POST', '/api/agents', { body: {} })
    expect(noName.status).toBe(422)
    expect(fieldPaths(noName.body)).toContain('name')
  })

  test('an http_request tool URL obeys the webhook address rules', async () => {
    const r = await t.api('POST', '/api/agents', {
      body: { name: 'X', enabledTools: ['http_request'], toolConfigs: { http_request: { url: 'https://10.0.0.1/x', description: 'x' } } },
    })
    expect(r.status).toBe(422)
    expect(fieldPaths(r.body)).toEqual(['toolConfigs.http_request.url'])
  })

  describe('webhookUrl SSRF refusal', () => {
    test.each([
      'https://127.0.0.1/hook',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]/hook',
      'https://localhost/hook',
      'http://93.184.216.34/hook',
      'not a url',
    ])('refuses %s', async (webhookUrl) => {
      const r = await t.api('POST', '/api/agents', { body: { name: 'Hooked', webhookUrl } })
      expect(r.status).toBe(422)
      expect(fieldPaths(r.body)).toEqual(['webhookUrl'])
    })

    test("a member is told the same for every name refused for what it resolves to, an admin what it resolved to", async () => {
      const { key } = await memberKey(t, 'dns-probe@example.com')
      const a = (await t.api('POST', '/api/agents', { body: { name: 'Probe' } })).body.agent
      const said = async (url: string, as?: string) => {
        const r = await t.api('PATCH', `/api/agents/${a.id}`, { body: { webhookUrl: url }, key: as })
        expect(r.status).toBe(422)
        return r.body.error.details.fields[0].message as string
      }
      // localhost resolves to a loopback address; a .invalid name resolves to nothing (RFC 2606)
      const member = [await said('https://localhost/hook', key), await said('https://nothing-here.invalid/hook', key)]
      expect(member[0]).toBe(member[1])
      expect(member[0]).not.toMatch(/127\.0\.0\.1|loopback|resolve to 127/)
      expect(await said('https://localhost/hook')).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/)
      expect(await said('https://nothing-here.invalid/hook')).toMatch(/does not resolve/)
      // a literal address tells nothing the member did not write: its class is said to everyone
      expect(await said('https://10.0.0.1/hook', key)).toMatch(/a private address/)
    })

    test('PUT refuses too and leaves the agent unchanged', async () => {
      const a = (await t.api('POST', '/api/agents', { body: { name: 'Safe', webhookUrl: 'https://93.184.216.34/ok' } })).body.agent
      const r = await t.api('PUT', `/api/agents/${a.id}`, { body: { webhookUrl: 'https://169.254.169.254/', name: 'Renamed' } })
      expect(r.status).toBe(422)
      expect((await t.api('GET', `/api/agents/${a.id}`)).body.agent).toEqual(a)
    })
  })

  test('PUT updates any subset, keeps the rest, answers {agent} and bumps the version', async () => {
    const a = (await t.api('POST', '/api/agents', { body: { name: 'Booker', role: 'booking', promptDraft: 'v1' } })).body.agent
    const r = await t.api('PUT', `/api/agents/${a.id}`, { body: { promptDraft: 'v2 for {{name}}', voice: { provider: 'elevenlabs' } } })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['agent'])
    expect(r.body.agent).toMatchObject({
      name: 'Booker',
      role: 'booking',
      promptDraft: 'v2 for {{name}}',
      voice: { provider: 'elevenlabs', voiceId: '21m00Tcm4TlvDq8ikWAM', speed: 1 },
      variables: ['name'],
      version: 2,
    })
    expect(r.body.agent.updatedAt >= a.updatedAt).toBe(true)
    const cleared = await t.api('PUT', `/api/agents/${a.id}`, { body: { webhookUrl: null } })
    expect(cleared.body.agent.webhookUrl).toBe('')
    const enabling = await t.api('PUT', `/api/agents/${a.id}`, { body: { enabledTools: ['transfer_call'] } })
    expect(enabling.status).toBe(422)
    expect(fieldPaths(enabling.body)).toEqual(['toolConfigs.transfer_call'])
  })

  test('publish copies the draft to the published prompt', async () => {
    const a = (await t.api('POST', '/api/agents', { body: { name: 'Pub', promptDraft: 'draft {{x}}', promptPublished: 'live' } })).body.agent
    const r = await t.api('POST', `/api/agents/${a.id}/publish`)
    expect(r.status).toBe(200)
    expect(r.body.agent).toMatchObject({ promptDraft: 'draft {{x}}', promptPublished: 'draft {{x}}', version: 2 })
    expect(r.body.agent.publishedAt > a.publishedAt).toBe(true)
  })

  test('list filters by agentType and role and pages with a cursor', async () => {
    for (const [agentType, role] of [['outbound', 'followup'], ['outbound', 'followup'], ['outbound', 'followup'], ['inbound', 'followup']]) {
      await t.api('POST', '/api/agents', { body: { name: `F ${agentType}`, agentType, role } })
    }
    const first = await t.api('GET', '/api/agents?agentType=outbound&role=followup&limit=2')
    expect(first.status).toBe(200)
    expect(first.body.agents).toHaveLength(2)
    expect(first.body.agents.every((a: any) => a.agentType === 'outbound' && a.role === 'followup')).toBe(true)
    const second = await t.api('GET', `/api/agents?agentType=outbound&role=followup&limit=2&cursor=${first.body.nextCursor}`)
    expect(second.body.agents).toHaveLength(1)
    expect(second.body.nextCursor).toBeNull()
    const ids = [...first.body.agents, ...second.body.agents].map((a: any) => a.id)
    expect(new Set(ids).size).toBe(3)
    expect((await t.api('GET', '/api/agents?role=janitor')).status).toBe(400)
  })

  test("another workspace's agents are 404 for every verb", async () => {
    const theirs = (await other('POST', '/api/agents', { body: { name: 'Theirs' } })).body.agent
    expect((await t.api('GET', `/api/agents/${theirs.id}`)).status).toBe(404)
    expect((await t.api('PUT', `/api/agents/${theirs.id}`, { body: { name: 'Mine now' } })).status).toBe(404)
    expect((await t.api('POST', `/api/agents/${theirs.id}/publish`)).status).toBe(404)
    expect((await t.api('DELETE', `/api/agents/${theirs.id}`)).status).toBe(404)
    expect((await t.api('GET', '/api/agents?limit=100')).body.agents.map((a: any) => a.id)).not.toContain(theirs.id)
    expect((await other('GET', `/api/agents/${theirs.id}`)).body.agent.name).toBe('Theirs')
  })

  test('members may read and write agents; a request without a key is 401', async () => {
    const { key } = await memberKey(t, 'agent-member@example.com')
    const made = await t.api('POST', '/api/agents', { key, body: { name: 'By member' } })
    expect(made.status).toBe(200)
    expect((await t.api('PUT', `/api/agents/${made.body.agent.id}`, { key, body: { role: 'sales' } })).status).toBe(200)
    expect((await t.api('GET', '/api/agents', { key })).status).toBe(200)
    expect((await t.api('DELETE', `/api/agents/${made.body.agent.id}`, { key })).status).toBe(200)
    expect((await t.api('GET', '/api/agents', { key: null })).status).toBe(401)
  })

  test('DELETE is refused with 409 while another record (such as an outbound job) references the agent', async () => {
    const a = (await t.api('POST', '/api/agents', { body: { name: 'Campaigner', agentType: 'outbound' } })).body.agent
    // Stands in for a campaign table: any table holding a foreign key to agents.
    const db = t.appliance.database.db
    await sql`CREATE TABLE IF NOT EXISTS test_agent_refs (agent_id TEXT NOT NULL REFERENCES agents(id))`.execute(db)
    await sql`INSERT INTO test_agent_refs (agent_id) VALUES (${a.id})`.execute(db)
    const r = await t.api('DELETE', `/api/agents/${a.id}`)
    expect(r.status).toBe(409)
    expect(r.body.error.details).toEqual({ reason: 'agent_in_use' })
    expect((await t.api('GET', `/api/agents/${a.id}`)).status).toBe(200)
    await sql`DELETE FROM test_agent_refs WHERE agent_id = ${a.id}`.execute(db)
    expect((await t.api('DELETE', `/api/agents/${a.id}`)).body).toEqual({ ok: true })
    expect((await t.api('GET', `/api/agents/${a.id}`)).status).toBe(404)
  })

  test('GET /api/providers lists what llmModel and voice.provider may name', async () => {
    const r = await t.api('GET', '/api/providers')
    expect(r.status).toBe(200)
    expect(r.body.llm.flatMap((p: any) => p.models)).toContain('gpt-4o-mini')
    expect(r.body.voice.map((p: any) => p.id)).toEqual(['flite', 'elevenlabs', 'openai'])
  })
})

describe('endpointing (issue 22)', () => {
  test("an agent's endpointing round-trips through create, PATCH, PUT, get and list; 'normal' when unset", async () => {
    const plain = (await t.api('POST', '/api/agents', { body: { name: 'Default pause' } })).body.agent
    expect(plain.endpointing).toBe('normal')
    const made = await t.api('POST', '/api/agents', { body: { name: 'Quick', endpointing: 'fast' } })
    expect(made.status).toBe(200)
    const a = made.body.agent
    expect(a.endpointing).toBe('fast')
    const patched = await t.api('PATCH', `/api/agents/${a.id}`, { body: { endpointing: 1200 } })
    expect(patched.status).toBe(200)
    expect(patched.body.agent).toMatchObject({ endpointing: 1200, name: 'Quick', version: 2 })
    expect((await t.api('GET', `/api/agents/${a.id}`)).body.agent.endpointing).toBe(1200)
    const listed = (await t.api('GET', '/api/agents?limit=100')).body.agents.find((x: any) => x.id === a.id)
    expect(listed.endpointing).toBe(1200)
    // a PATCH or PUT that leaves it out keeps it
    expect((await t.api('PATCH', `/api/agents/${a.id}`, { body: { name: 'Quick 2' } })).body.agent.endpointing).toBe(1200)
    expect((await t.api('PUT', `/api/agents/${a.id}`, { body: { role: 'booking' } })).body.agent.endpointing).toBe(1200)
    const put = await t.api('PUT', `/api/agents/${a.id}`, { body: { endpointing: 'patient' } })
    expect(put.body.agent.endpointing).toBe('patient')
    for (const edge of [100, 5000, 'normal']) {
      expect((await t.api('PATCH', `/api/agents/${a.id}`, { body: { endpointing: edge } })).body.agent.endpointing).toBe(edge)
    }
  })

  test('an endpointing other than a preset or an integer of 100-5000 ms is refused naming the field, and changes nothing', async () => {
    const bad = ['slow', 'FAST', '', '800', 99, 5001, 800.5, null, true, { ms: 800 }]
    const a = (await t.api('POST', '/api/agents', { body: { name: 'Good pause', endpointing: 'patient' } })).body.agent
    const before = (await t.api('GET', '/api/agents?limit=100')).body.agents
    for (const endpointing of bad) {
      const created = await t.api('POST', '/api/agents', { body: { name: 'Bad pause', endpointing } })
      expect({ endpointing, status: created.status, code: created.body.error?.code }).toEqual({ endpointing, status: 422, code: 'validation_failed' })
      expect(created.body.error.details.fields).toEqual([
        { path: 'endpointing', location: 'body', message: 'must be fast, normal, patient or an integer of milliseconds from 100 to 5000' },
      ])
    }
    for (const [verb, endpointing] of [['PATCH', 'slow'], ['PUT', 5001], ['PATCH', '800']] as const) {
      const r = await t.api(verb, `/api/agents/${a.id}`, { body: { endpointing, name: 'Renamed' } })
      expect({ verb, endpointing, status: r.status, paths: fieldPaths(r.body) }).toEqual({ verb, endpointing, status: 422, paths: ['endpointing'] })
    }
    expect((await t.api('GET', '/api/agents?limit=100')).body.agents).toEqual(before)
  })

  test('a template fills what the body leaves out and keeps the endpointing the body sets', async () => {
    const r = await t.api('POST', '/api/agents', { body: { name: 'Front desk', template: 'receptionist', endpointing: 700 } })
    expect(r.status).toBe(200)
    expect(r.body.agent).toMatchObject({ role: 'reception', endpointing: 700 })
    const plain = await t.api('POST', '/api/agents', { body: { name: 'Front desk 2', template: 'booking' } })
    expect(plain.body.agent.endpointing).toBe('normal')
  })
})
