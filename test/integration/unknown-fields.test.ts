// Every route refuses the fields it does not declare, in the body (422) and in the query string
// of /api routes (400), at the top and in every nested object, naming each; the documented
// free-form maps take any key.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { guardedInner } from '../../src/platform/schema/index.ts'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'
import dgram from 'node:dgram'
import { untilAsync } from '../helpers/until.ts'

let t: TestAppliance
let doc: { paths: Record<string, Record<string, Operation>> }

interface JsonSchema {
  properties?: Record<string, JsonSchema>
  patternProperties?: Record<string, JsonSchema>
  additionalProperties?: unknown
  items?: JsonSchema
}
interface Operation {
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
}

beforeAll(async () => {
  t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
  doc = (await t.api('GET', '/openapi/json', { key: null })).body
})
afterAll(() => t.stop())

const routes = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })))
const urlOf = (path: string) => path.replace('{workspace_id}', t.workspaceId).replace(/\{[^}]+\}/g, 'nope')
const takesJson = (op: Operation) => op.requestBody === undefined || op.requestBody.content?.['application/json'] !== undefined

/** Every closed object of a body schema, as the path from the body to it (records and unions are not entered). */
function* objectsOf(schema: JsonSchema | undefined, at: (string | number)[] = []): Generator<(string | number)[]> {
  if (!schema) return
  const closed = schema.properties !== undefined && !schema.patternProperties && (schema.additionalProperties === undefined || schema.additionalProperties === false)
  if (closed) {
    yield at
    for (const [key, member] of Object.entries(schema.properties ?? {})) yield* objectsOf(member, [...at, key])
  }
  if (schema.items) yield* objectsOf(schema.items, [...at, 0])
}

/** A body with `{colour}` at `at`, and the field path the answer should name. */
function bodyWithColourAt(at: (string | number)[]): { body: unknown; path: string } {
  let value: unknown = { colour: 'red' }
  for (let i = at.length - 1; i >= 0; i--) value = typeof at[i] === 'number' ? [value] : { [at[i] as string]: value }
  const path = at.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('')
  return { body: value, path: path ? `${path}.colour` : 'colour' }
}

const named = (r: { body: any }) => (r.body?.error?.details?.fields ?? []) as { path: string; location?: string; message: string }[]

describe('unknown fields are refused on every route', () => {
  test('the walk below reaches every route that can take a body: each is in the OpenAPI document', () => {
    const documented = new Set(routes().map((r) => `${r.method} ${r.path}`))
    const missing = t.appliance.app.routes
      .filter((r) => !['GET', 'HEAD'].includes(r.method))
      .map((r) => `${r.method} ${r.path.replace(/:([a-z_]+)/g, '{$1}')}`)
      .filter((r) => !documented.has(r))
    expect(missing).toEqual([])
  })

  test('a body with an undeclared field, at the top or in any nested object, is 422 naming it on every route', async () => {
    const wrong: string[] = []
    const probed: string[] = []
    for (const { method, path, op } of routes()) {
      if (method === 'GET' || !takesJson(op)) continue
      const schema = op.requestBody?.content?.['application/json']?.schema
      const places = schema ? [...objectsOf(schema)] : [[]]
      for (const at of places) {
        const { body, path: field } = bodyWithColourAt(at)
        const r = await t.api(method, urlOf(path), { body })
        probed.push(`${method} ${path} ${field}`)
        const hit = named(r).find((f) => f.path === field)
        if (r.status !== 422 || r.body.error.code !== 'validation_failed' || hit?.message !== 'unknown field' || hit.location !== 'body') {
          wrong.push(`${method} ${path} ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`)
        }
      }
    }
    expect(wrong).toEqual([])
    // the nested objects were reached too: an agent's welcome and voice, a workflow's nodes, a job's settings and contacts...
    expect(probed).toEqual(
      expect.arrayContaining([
        'POST /api/agents/{id}/publish colour',
        'PATCH /api/agents/{id} welcome.colour',
        'PUT /api/agents/{id} voice.colour',
        'PUT /api/agents/{id}/workflow nodes[0].colour',
        'PUT /api/agents/{id}/workflow settings.colour',
        'POST /api/agents/{id}/workflow/test-run workflow.nodes[0].colour',
        'POST /api/agents/{id}/workflow/test-run inputs[0].colour',
        'POST /api/outbound/jobs settings.scheduling.colour',
        'POST /api/outbound/jobs settings.callingWindow.colour',
        'POST /api/outbound/jobs contacts[0].colour',
        'DELETE /api/phone-numbers/{id} colour',
      ]),
    )
  })

  test('a query parameter an /api route does not declare is 400 naming it, on every /api route', async () => {
    const wrong: string[] = []
    for (const { method, path } of routes()) {
      if (!path.startsWith('/api')) continue
      const r = await t.api(method, `${urlOf(path)}?colour=red`)
      const hit = named(r).find((f) => f.path === 'colour')
      if (r.status !== 400 || hit?.message !== 'unknown field' || hit.location !== 'query') wrong.push(`${method} ${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`)
    }
    expect(wrong).toEqual([])
  })

  test('the error names every undeclared field and what else is wrong, values never echoed', async () => {
    const r = await t.api('POST', '/api/agents', { body: { name: '', colour: 'red', welcome: { mode: 'agent_speaks_first', tone: 'secret-value' } } })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('validation_failed')
    expect(named(r)).toEqual([
      { path: 'colour', location: 'body', message: 'unknown field' },
      { path: 'welcome.tone', location: 'body', message: 'unknown field' },
      { path: 'name', location: 'body', message: expect.any(String) },
    ])
    expect(JSON.stringify(r.body)).not.toContain('secret-value')
    expect((await t.api('GET', '/api/agents')).body.agents).toEqual([])
  })

  test('an otherwise valid request with an undeclared field changes nothing', async () => {
    const r = await t.api('POST', '/api/knowledge-bases', { body: { name: 'Menu', descripton: 'typo' } })
    expect(r.status).toBe(422)
    expect(r.body.error.message).toBe('descripton: unknown field')
    expect((await t.api('GET', '/api/knowledge-bases')).body.knowledgeBases).toEqual([])
  })

  test('the OpenAPI document says so: a body object that names its fields has additionalProperties false, a free-form map its key pattern', () => {
    const agent = doc.paths['/api/agents']!.post!.requestBody!.content!['application/json']!.schema!
    expect(agent.additionalProperties).toBe(false)
    expect(agent.properties!.welcome!.additionalProperties).toBe(false)
    expect(agent.properties!.toolConfigs!.patternProperties).toBeDefined()
    const testRun = doc.paths['/api/agents/{id}/workflow/test-run']!.post!.requestBody!.content!['application/json']!.schema!
    expect(testRun.properties!.inputs!.items!.additionalProperties).toBe(false)
    expect(testRun.properties!.workflow!.properties!.nodes!.items!.additionalProperties).toBe(false)
    expect(testRun.properties!.variables!.patternProperties).toBeDefined()
    const call = doc.paths['/api/calls']!.post!.requestBody!.content!['application/json']!.schema!
    expect(Object.values(call.properties!.dynamicVariables!.patternProperties!)).toEqual([expect.objectContaining({ type: 'string' })])
  })

  test('a caller without a key gets 401 whatever the body holds', async () => {
    const r = await t.api('POST', '/api/agents', { key: null, body: { name: 'x', colour: 'red' } })
    expect(r.status).toBe(401)
  })

  test('routes outside /api take any query string: probes and the console page', async () => {
    for (const path of ['/health?colour=red', '/ready?colour=red', '/console?colour=red']) {
      expect([path, (await fetch(`${t.url}${path}`)).status]).toEqual([path, 200])
    }
  })
})

describe('the free-form maps take any key', () => {
  const http = { url: 'https://1.1.1.1/orders', description: 'looks up an order', headers: { 'X-Api-Key': 'k', 'X-Any-Header': 'v' }, parameters: { type: 'object', properties: { order: { type: 'string', 'x-vendor': { deep: [1] } } } } }
  const tool = { id: 'lookup', type: 'tool', config: { tool: 'http_request', arguments: { anyName: '{{order}}', 'other-key': 2 }, assign: { status: 'order.status', when: 'order.at' } } }
  const workflow = {
    nodes: [{ id: 'start', type: 'start', config: {} }, tool, { id: 'bye', type: 'end', config: { text: 'Bye.' } }],
    edges: [{ from: 'start', to: 'lookup' }, { from: 'lookup', to: 'bye' }],
  }
  let agentId: string
  let numberId: string
  // the number's trunk: answers every INVITE 486 Busy Here, so a placed call ends at once
  const trunk = dgram.createSocket('udp4')
  trunk.on('message', (msg, from) => {
    const text = msg.toString()
    if (!text.startsWith('INVITE ')) return
    const header = (name: string) => text.split('\r\n').filter((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    const to = `${header('To')[0]};tag=busy`
    const lines = ['SIP/2.0 486 Busy Here', ...header('Via'), ...header('From'), to, ...header('Call-ID'), ...header('CSeq'), 'Content-Length: 0', '', '']
    trunk.send(lines.join('\r\n'), from.port, from.address)
  })
  afterAll(() => trunk.close())

  beforeAll(async () => {
    await new Promise<void>((resolve) => trunk.bind(0, '127.0.0.1', resolve))
    await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'fields' } })
    agentId = (await t.api('POST', '/api/agents', { body: { name: 'Maps', agentType: 'outbound' } })).body.agent.id
    const number = await t.api('POST', '/api/phone-numbers', { body: { e164: '+14155550177', sipTerminationUri: `sip:127.0.0.1:${trunk.address().port}`, sipOutboundTransport: 'udp', outboundAgentId: agentId } })
    expect(number.status, JSON.stringify(number.body)).toBe(200)
    numberId = number.body.phoneNumber.id
  })

  test("an http_request tool's headers and parameters (a JSON Schema), and a tool node's arguments and assign", async () => {
    const agent = await t.api('PATCH', `/api/agents/${agentId}`, { body: { enabledTools: ['http_request'], toolConfigs: { http_request: http } } })
    expect(agent.status, JSON.stringify(agent.body)).toBe(200)
    expect(agent.body.agent.toolConfigs.http_request).toMatchObject({ headers: http.headers, parameters: http.parameters })
    const saved = await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: workflow })
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    expect(saved.body.workflow.nodes[1].config).toEqual(tool.config)
  })

  test("a test run's variables and toolResults, whose results are any JSON", async () => {
    const r = await t.api('POST', `/api/agents/${agentId}/workflow/test-run`, {
      body: { inputs: [], variables: { order: 'A-7', any_name: true }, toolResults: { lookup: { order: { status: 'shipped', at: 'noon', extra: { deep: [1, { x: 2 }] } } } } },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.variables).toMatchObject({ status: 'shipped', when: 'noon' })
  })

  test("a call's and a campaign contact's dynamicVariables", async () => {
    const call = await t.api('POST', '/api/calls', { body: { phoneNumberId: numberId, to: '+14155550123', dynamicVariables: { customer_name: 'Ada', anything_else: 'x' } } })
    expect(call.status, JSON.stringify(call.body)).toBe(200)
    expect(call.body.call.dynamicVariables).toMatchObject({ customer_name: 'Ada', anything_else: 'x' })
    await untilAsync(async () => (await t.api('GET', `/api/calls/${call.body.call.id}`)).body.call.status === 'ended', 5000, 'the busy call ended', 50)
    const startAt = '2999-01-01T09:00:00Z'
    const job = await t.api('POST', '/api/outbound/jobs', {
      body: { agentId, phoneNumberId: numberId, settings: { scheduling: { startAt } }, contacts: [{ to: '+14155550124', dynamicVariables: { customer_name: 'Bo', 'plan.tier': 'gold', n: 3 } }] },
    })
    expect(job.status, JSON.stringify(job.body)).toBe(200)
  })

  test('what is checked against the schema of its kind names undeclared fields the same way: a tool config, a node config, an edge', async () => {
    const agent = await t.api('PATCH', `/api/agents/${agentId}`, { body: { toolConfigs: { http_request: { ...http, colour: 'red' } } } })
    expect(agent.status).toBe(422)
    expect(named(agent)).toEqual([{ path: 'toolConfigs.http_request.colour', message: 'unknown field' }])
    const node = await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: { ...workflow, nodes: [{ id: 'start', type: 'start', config: { colour: 'red' } }, ...workflow.nodes.slice(1)] } })
    expect(node.status).toBe(422)
    expect(named(node)).toContainEqual(expect.objectContaining({ path: 'nodes[0].config.colour', message: expect.stringContaining('unknown field') }))
    const edge = await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: { ...workflow, edges: [{ from: 'start', to: 'lookup', colour: 'red' }, workflow.edges[1]] } })
    expect(edge.status).toBe(422)
    expect(named(edge)).toContainEqual(expect.objectContaining({ path: 'edges[0].colour', message: expect.stringContaining('unknown field') }))
  })
})

/** Where a body schema takes keys it does not name (`keys`) or any value at all (`any`), by field path. */
function* openPlaces(schema: any, path = ''): Generator<string> {
  const s = guardedInner(schema) ?? schema
  if (s.anyOf || s.allOf) for (const member of s.anyOf ?? s.allOf) yield* openPlaces(member, path)
  else if (s.type === 'array') yield* openPlaces(s.items, `${path}[]`)
  else if (s.type === 'object') {
    for (const [key, member] of Object.entries(s.properties ?? {})) yield* openPlaces(member, path ? `${path}.${key}` : key)
    const values = [...Object.values(s.patternProperties ?? {}), ...(typeof s.additionalProperties === 'object' ? [s.additionalProperties] : [])]
    if (values.length || s.additionalProperties === true) yield `${path} keys`
    for (const value of values) yield* openPlaces(value, `${path}.*`)
  } else if (s.type === undefined && !('const' in s) && !s.enum) yield `${path} any`
}

test('the only open places of all request bodies are the free-form maps of docs/http.md and the parts checked per kind', () => {
  const places = new Map<string, Set<string>>()
  for (const r of t.appliance.app.routes) {
    const body = (r.hooks as { body?: unknown }).body
    for (const place of body ? openPlaces(body) : []) places.set(place, (places.get(place) ?? new Set()).add(`${r.method} ${r.path}`))
  }
  const agents = ['POST /api/agents', 'PUT /api/agents/:id', 'PATCH /api/agents/:id']
  const drafts = ['POST /api/agents/:id/workflow/test-run', 'POST /api/agents/:id/web-calls']
  expect(Object.fromEntries([...places].map(([place, on]) => [place, [...on].sort()]))).toEqual({
    // free-form: any key (each named by the map's own key pattern)
    'dynamicVariables keys': ['POST /api/calls'],
    'contacts[].dynamicVariables keys': ['POST /api/outbound/jobs'],
    'variables keys': ['POST /api/agents/:id/workflow/test-run'],
    'toolResults keys': ['POST /api/agents/:id/workflow/test-run'],
    'toolResults.* any': ['POST /api/agents/:id/workflow/test-run'],
    // checked per kind by the service, undeclared fields named "unknown field": a tool's config by the tool, a node's by its type, an edge
    'toolConfigs keys': agents.sort(),
    'toolConfigs.* any': agents.sort(),
    'nodes[].config keys': ['PUT /api/agents/:id/workflow'],
    'nodes[].config.* any': ['PUT /api/agents/:id/workflow'],
    'edges[] any': ['PUT /api/agents/:id/workflow'],
    'workflow.nodes[].config keys': drafts.sort(),
    'workflow.nodes[].config.* any': drafts.sort(),
    'workflow.edges[] any': drafts.sort(),
    // an agent test case's tool_called expectation: the arguments the tool is expected with
    'expectations[].arguments keys': ['PATCH /api/agents/:id/tests/:test_id', 'POST /api/agents/:id/tests'],
    'expectations[].arguments.* any': ['PATCH /api/agents/:id/tests/:test_id', 'POST /api/agents/:id/tests'],
  })
})
