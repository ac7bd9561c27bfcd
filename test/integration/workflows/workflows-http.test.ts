import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai-chat-server.ts'
import { startWorkflowApp, type WorkflowApp } from './harness.ts'

let w: WorkflowApp
const AGENT = 'agt_reception'
const path = (agent = AGENT) => `/api/agents/${agent}/workflow`

/** A reception IVR: key 1 transfers to sales, key 2 collects a PIN and says goodbye. */
type Body = { nodes: { id: string; type: string; config: Record<string, unknown> }[]; edges: Record<string, unknown>[] }
const ivr = (): Body => ({
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Welcome to {{company}}.' } },
    { id: 'menu', type: 'say', config: { text: 'Press 1 for sales or 2 to leave your PIN.' } },
    { id: 'sales', type: 'transfer', config: { target: 'sip:sales@pbx.example', text: 'Transferring you to sales.' } },
    { id: 'pin', type: 'collect', config: { prompt: 'Your PIN please.', kind: 'digits', variable: 'pin', minDigits: 4, maxDigits: 4 } },
    { id: 'bye', type: 'end', config: { text: 'Thanks, PIN {{pin}} noted.' } },
  ],
  edges: [
    { from: 'start', to: 'menu' },
    { id: 'to_sales', from: 'menu', to: 'sales', condition: { type: 'dtmf', digits: '1' } },
    { id: 'to_pin', from: 'menu', to: 'pin', condition: { type: 'dtmf', digits: '2' } },
    { from: 'pin', to: 'bye', condition: { type: 'else' } },
  ],
})

beforeAll(async () => {
  w = await startWorkflowApp()
  w.addAgent(w.workspaceId, AGENT, ['end_call', 'http_request'])
  w.addAgent(w.workspaceId, 'agt_other')
})
afterAll(() => w.stop())

describe('GET, PUT and DELETE /api/agents/{id}/workflow', () => {
  test('PUT attaches a valid workflow, stores it and returns it; GET returns the same', async () => {
    const put = await w.api('PUT', path(), { body: ivr() })
    expect(put.status).toBe(200)
    expect(put.body.workflow).toMatchObject({ agentId: AGENT, nodes: ivr().nodes, edges: ivr().edges, settings: {} })
    expect(put.body.workflow.createdAt).toBe(put.body.workflow.updatedAt)
    const rows = w.workflowRows().filter((r) => r.agent_id === AGENT)
    expect(rows).toHaveLength(1)
    expect(rows[0]?.workspace_id).toBe(w.workspaceId)
    expect(JSON.parse(rows[0]?.graph ?? '{}').nodes).toEqual(ivr().nodes)
    const get = await w.api('GET', path())
    expect(get.status).toBe(200)
    expect(get.body).toEqual(put.body)
  })

  test('PUT replaces the whole graph and keeps createdAt', async () => {
    const first = await w.api('GET', path())
    const next = ivr()
    next.nodes[0] = { id: 'start', type: 'start', config: { text: 'Hello again.' } }
    const put = await w.api('PUT', path(), { body: { ...next, settings: { maxVisits: 3 } } })
    expect(put.status).toBe(200)
    expect(put.body.workflow.nodes[0].config.text).toBe('Hello again.')
    expect(put.body.workflow.settings).toEqual({ maxVisits: 3 })
    expect(put.body.workflow.createdAt).toBe(first.body.workflow.createdAt)
    expect(put.body.workflow.updatedAt >= first.body.workflow.updatedAt).toBe(true)
  })

  test('DELETE detaches the workflow; GET and a second DELETE then answer 404', async () => {
    expect((await w.api('PUT', path('agt_other'), { body: ivr() })).status).toBe(200)
    const del = await w.api('DELETE', path('agt_other'))
    expect(del).toMatchObject({ status: 200, body: { ok: true } })
    expect(w.workflowRows().map((r) => r.agent_id)).not.toContain('agt_other')
    const get = await w.api('GET', path('agt_other'))
    expect(get.status).toBe(404)
    expect(get.body.error).toMatchObject({ code: 'not_found', message: 'agent has no workflow' })
    expect((await w.api('DELETE', path('agt_other'))).status).toBe(404)
  })

  test('an agent that does not exist gets 404 agent not found on every route, and nothing is stored', async () => {
    for (const [method, p, body] of [
      ['GET', path('agt_missing'), undefined],
      ['PUT', path('agt_missing'), ivr()],
      ['DELETE', path('agt_missing'), undefined],
      ['POST', `${path('agt_missing')}/test-run`, { inputs: [] }],
    ] as const) {
      const r = await w.api(method, p, { body })
      expect(r.status).toBe(404)
      expect(r.body.error).toMatchObject({ code: 'not_found', message: 'agent not found' })
    }
    expect(w.workflowRows().map((r) => r.agent_id)).not.toContain('agt_missing')
  })

  test("another workspace's key cannot see or change this workspace's agent workflow", async () => {
    const created = await w.api('POST', '/api/workspaces', { body: { name: 'Elsewhere' } })
    expect(created.status).toBe(200)
    const otherKey = created.body.apiKey.key as string
    expect((await w.api('GET', path(), { key: otherKey })).status).toBe(404)
    expect((await w.api('PUT', path(), { key: otherKey, body: ivr() })).status).toBe(404)
    expect((await w.api('DELETE', path(), { key: otherKey })).status).toBe(404)
    expect((await w.api('GET', path())).status).toBe(200)
  })

  test('requests without an API key are refused with 401', async () => {
    const r = await w.api('GET', path(), { key: null })
    expect(r.status).toBe(401)
  })
})

const broken = (f: (b: Body) => void) => {
  const b = ivr()
  f(b)
  return b
}

describe('PUT validation: one refusal per rule, each naming the node or edge', () => {
  const cases: { rule: string; body: Body; path: string; nodeId?: string; edgeIndex?: number; says: string }[] = [
    { rule: 'start_count', body: broken((b) => {
        b.nodes.push({ id: 'start2', type: 'start', config: {} })
        b.edges.push({ from: 'start2', to: 'menu' })
      }), path: 'nodes', nodeId: 'start2', says: 'exactly one start node' },
    { rule: 'duplicate_node_id', body: broken((b) => b.nodes.push({ id: 'bye', type: 'end', config: {} })), path: 'nodes[5].id', nodeId: 'bye', says: 'node id "bye" is used by nodes[4] and nodes[5]' },
    { rule: 'duplicate_edge_id', body: broken((b) => (b.edges[2] as { id: string }).id = 'to_sales'), path: 'edges[2].id', edgeIndex: 2, says: 'edge id "to_sales"' },
    { rule: 'edge_end_missing', body: broken((b) => (b.edges[1] as { to: string }).to = 'sale'), path: 'edges[1].to', edgeIndex: 1, says: 'edge "to_sales": to node "sale" does not exist' },
    { rule: 'unreachable', body: broken((b) => b.nodes.push({ id: 'island', type: 'end', config: {} })), path: 'nodes[5]', nodeId: 'island', says: 'node "island" cannot be reached' },
    { rule: 'no_terminal', body: { nodes: [{ id: 's', type: 'start', config: {} }, { id: 'm', type: 'say', config: { text: 'hi' } }], edges: [{ from: 's', to: 'm' }, { from: 'm', to: 's' }] }, path: 'nodes', says: 'at least one terminal node' },
    { rule: 'dead_end', body: broken((b) => b.edges.pop()), path: 'nodes[3]', nodeId: 'pin', says: 'collect node "pin" has no outgoing edge' },
    { rule: 'terminal_has_edges', body: broken((b) => b.edges.push({ from: 'sales', to: 'menu' })), path: 'edges[4]', nodeId: 'sales', edgeIndex: 4, says: 'transfer node "sales" ends the call' },
    { rule: 'multiple_else', body: broken((b) => b.edges.push({ from: 'pin', to: 'sales' })), path: 'edges[4]', nodeId: 'pin', edgeIndex: 4, says: 'node "pin" has more than one else' },
    { rule: 'node_config', body: broken((b) => ((b.nodes[2] as { config: Record<string, unknown> }).config.target = 'reception')), path: 'nodes[2].config.target', nodeId: 'sales', says: 'transfer node "sales": config.target must be an E.164 number' },
    { rule: 'edge_shape', body: broken((b) => ((b.edges[1] as Record<string, unknown>).condition = { type: 'dtmf', digits: 'one' })), path: 'edges[1].condition.digits', edgeIndex: 1, says: 'edge "to_sales": condition.digits must match' },
  ]

  for (const c of cases) {
    test(`${c.rule} is refused with 422 and changes nothing`, async () => {
      const before = await w.api('GET', path())
      const r = await w.api('PUT', path(), { body: c.body })
      expect(r.status).toBe(422)
      expect(r.body.error.code).toBe('validation_failed')
      expect(r.body.error.message).toContain(c.says)
      const issue = r.body.error.details.fields.find((f: { rule: string }) => f.rule === c.rule)
      expect(issue).toMatchObject({ path: c.path, ...(c.nodeId ? { nodeId: c.nodeId } : {}), ...(c.edgeIndex !== undefined ? { edgeIndex: c.edgeIndex } : {}) })
      expect(issue.message).toContain(c.says)
      expect((await w.api('GET', path())).body).toEqual(before.body)
    })
  }

  test("tool_not_enabled: a tool node calling a tool the agent has not enabled is refused", async () => {
    const b = ivr()
    b.nodes.splice(4, 0, { id: 'notify', type: 'tool', config: { tool: 'send_sms' } })
    b.edges[3] = { from: 'pin', to: 'notify' }
    b.edges.push({ from: 'notify', to: 'bye' })
    const r = await w.api('PUT', path(), { body: b })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields).toEqual([
      { rule: 'tool_not_enabled', path: 'nodes[4].config.tool', nodeId: 'notify', message: 'tool node "notify" calls send_sms, which is not enabled for this agent (enabled: end_call, http_request)' },
    ])
    ;(b.nodes[4] as { config: Record<string, unknown> }).config.tool = 'http_request'
    expect((await w.api('PUT', `${path()}`, { body: b })).status).toBe(200)
    expect((await w.api('PUT', path(), { body: ivr() })).status).toBe(200)
  })

  test('a body that is not a graph is refused by the schema with the field named', async () => {
    const r = await w.api('PUT', path(), { body: { nodes: [{ id: 'x', type: 'teleport' }], edges: [] } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain('nodes[0].type')
  })

  test('malformed JSON gets 400 and changes nothing', async () => {
    const r = await w.api('PUT', path(), { body: '{"nodes": [' })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('bad_request')
  })
})

describe('POST /api/agents/{id}/workflow/test-run', () => {
  beforeAll(async () => {
    expect((await w.api('PUT', path(), { body: ivr() })).status).toBe(200)
  })

  test('DTMF 1 takes the sales branch: the response has exactly the spec fields plus variables', async () => {
    const r = await w.api('POST', `${path()}/test-run`, { body: { inputs: [{ role: 'user', content: 'dtmf:1' }], variables: { company: 'Acme' } } })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(['finalAction', 'finalNode', 'path', 'responses', 'variables'])
    expect(r.body).toEqual({
      path: ['start', 'menu', 'sales'],
      responses: [
        { nodeId: 'start', output: 'Welcome to Acme.' },
        { nodeId: 'menu', output: 'Press 1 for sales or 2 to leave your PIN.' },
        { nodeId: 'sales', output: 'Transferring you to sales.' },
      ],
      finalNode: 'sales',
      finalAction: 'transfer',
      variables: { company: 'Acme' },
    })
  })

  test('a collect with a reprompt ends the call, and the collected value is reported', async () => {
    const inputs = [
      { role: 'user', content: 'dtmf:2' },
      { role: 'assistant', content: 'Your PIN please.' },
      { role: 'user', content: 'I forgot' },
      { role: 'user', content: 'seven seven one two' },
    ]
    const r = await w.api('POST', `${path()}/test-run`, { body: { inputs } })
    expect(r.status).toBe(200)
    expect(r.body.path).toEqual(['start', 'menu', 'pin', 'bye'])
    expect(r.body.responses.slice(-2)).toEqual([
      { nodeId: 'pin', output: "Sorry, I didn't get that. Your PIN please." },
      { nodeId: 'bye', output: 'Thanks, PIN 7712 noted.' },
    ])
    expect(r.body.finalAction).toBe('end_call')
    expect(r.body.variables).toEqual({ pin: '7712' })
  })

  test('a draft in the body is run without being saved', async () => {
    const draft = { nodes: [{ id: 'hi', type: 'start', config: { text: 'Draft {{n}}' } }, { id: 'x', type: 'end', config: {} }], edges: [{ from: 'hi', to: 'x' }] }
    const r = await w.api('POST', `${path()}/test-run`, { body: { inputs: [], workflow: draft, variables: { n: 2 } } })
    expect(r.body).toMatchObject({ path: ['hi', 'x'], finalNode: 'x', finalAction: 'end_call', responses: [{ nodeId: 'hi', output: 'Draft 2' }] })
    expect((await w.api('GET', path())).body.workflow.nodes[0].id).toBe('start')
  })

  test('an invalid draft is refused with issues under workflow.', async () => {
    const r = await w.api('POST', `${path()}/test-run`, { body: { inputs: [], workflow: { nodes: [{ id: 'a', type: 'say', config: { text: 'x' } }], edges: [] } } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain('workflow.nodes')
  })

  test('the loop guard ends a run that keeps repeating the menu with finalAction loop_limit', async () => {
    const body = { ...ivr(), settings: { maxVisits: 2 } }
    const inputs = ['dtmf:9', 'dtmf:9', 'dtmf:1'].map((content) => ({ role: 'user', content }))
    const r = await w.api('POST', `${path()}/test-run`, { body: { inputs, workflow: body } })
    expect(r.body).toMatchObject({ path: ['start', 'menu', 'menu', 'menu'], finalNode: 'menu', finalAction: 'loop_limit' })
  })

  test('a tool node runs on the result given in toolResults', async () => {
    const draft = {
      nodes: [
        { id: 'start', type: 'start', config: {} },
        { id: 'lookup', type: 'tool', config: { tool: 'http_request', arguments: { url: 'https://crm.example/{{caller}}' }, assign: { tier: 'customer.tier' } } },
        { id: 'gold', type: 'transfer', config: { target: '+14155559999' } },
        { id: 'std', type: 'end', config: { text: 'Standard line.' } },
      ],
      edges: [
        { from: 'start', to: 'lookup' },
        { from: 'lookup', to: 'gold', condition: { type: 'variable', variable: 'tier', op: 'eq', value: 'gold' } },
        { from: 'lookup', to: 'std' },
      ],
    }
    const r = await w.api('POST', `${path()}/test-run`, { body: { inputs: [], workflow: draft, toolResults: { lookup: { customer: { tier: 'Gold' } } } } })
    expect(r.body).toMatchObject({ path: ['start', 'lookup', 'gold'], finalAction: 'transfer', variables: { tier: 'Gold' } })
    const without = await w.api('POST', `${path()}/test-run`, { body: { inputs: [], workflow: draft } })
    expect(without.status).toBe(422)
    expect(without.body.error.details).toEqual({ reason: 'tool_not_available', nodeId: 'lookup' })
  })

  test('a conversation node with no LLM configured gets 422 naming the node', async () => {
    const draft = {
      nodes: [{ id: 'start', type: 'start', config: {} }, { id: 'chat', type: 'conversation', config: { instructions: 'Help.' } }, { id: 'e', type: 'end', config: {} }],
      edges: [{ from: 'start', to: 'chat' }, { from: 'chat', to: 'e', condition: { type: 'keywords', keywords: ['bye'] } }],
    }
    const r = await w.api('POST', `${path()}/test-run`, { body: { inputs: [{ role: 'user', content: 'hi' }], workflow: draft } })
    expect(r.status).toBe(422)
    expect(r.body.error).toMatchObject({ code: 'validation_failed', message: 'conversation node "chat" needs an LLM, and no LLM is configured', details: { reason: 'llm_not_configured', nodeId: 'chat' } })
  })

  test('a bad transcript entry is refused naming the field', async () => {
    const r = await w.api('POST', `${path()}/test-run`, { body: { inputs: [{ role: 'system', content: 'x' }] } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields[0].path).toBe('inputs[0].role')
  })

  test('an agent without a workflow gets 404 when no draft is sent', async () => {
    w.addAgent(w.workspaceId, 'agt_bare')
    const r = await w.api('POST', `${path('agt_bare')}/test-run`, { body: { inputs: [] } })
    expect(r.status).toBe(404)
    expect(r.body.error.message).toContain('agent has no workflow')
  })

  test('the OpenAPI document lists the four workflow routes', async () => {
    const r = await w.api('GET', '/openapi/json', { key: null })
    const p = r.body.paths['/api/agents/{id}/workflow']
    expect(Object.keys(p).sort()).toEqual(['delete', 'get', 'put'])
    expect(r.body.paths['/api/agents/{id}/workflow/test-run'].post).toBeDefined()
  })
})

describe('test-run on the appliance\'s LLM (a local fake speaking the OpenAI protocol)', () => {
  let fake: FakeOpenAi
  let l: WorkflowApp
  beforeAll(async () => {
    fake = startFakeOpenAi((req) => {
      const system = req.messages[0]?.content ?? ''
      if (!system.startsWith('You classify')) return 'Our opening hours are nine to five.'
      return /cancel/i.test(req.messages.at(-1)?.content ?? '') ? '2' : '0'
    })
    l = await startWorkflowApp({ LLM_PROVIDER: 'openai', LLM_BASE_URL: fake.baseUrl, LLM_API_KEY: fake.apiKey, LLM_WORKFLOW_MODEL: 'fake-mini' })
    l.addAgent(l.workspaceId, 'agt_llm', [])
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: { text: 'How can I help?' } },
        { id: 'book', type: 'end', config: { text: 'Booking.' } },
        { id: 'cancel', type: 'transfer', config: { target: '+14155554444' } },
        { id: 'faq', type: 'conversation', config: { instructions: 'Answer questions about the shop.' } },
        { id: 'bye', type: 'end', config: {} },
      ],
      edges: [
        { id: 'wants_booking', from: 'start', to: 'book', condition: { type: 'intent', intent: 'wants to book an appointment' } },
        { id: 'wants_cancel', from: 'start', to: 'cancel', condition: { type: 'intent', intent: 'wants to cancel an appointment' } },
        { from: 'start', to: 'faq' },
        { from: 'faq', to: 'bye', condition: { type: 'keywords', keywords: ['bye'] } },
      ],
    }
    expect((await l.api('PUT', '/api/agents/agt_llm/workflow', { body: graph })).status).toBe(200)
  })
  afterAll(async () => {
    await l.stop()
    await fake.stop()
  })

  test('the LLM-judged intent picks the cancel branch; the configured model and key are used', async () => {
    fake.requests.length = 0
    const r = await l.api('POST', '/api/agents/agt_llm/workflow/test-run', { body: { inputs: [{ role: 'user', content: 'I need to cancel my visit tomorrow' }] } })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ path: ['start', 'cancel'], finalNode: 'cancel', finalAction: 'transfer' })
    expect(fake.requests).toHaveLength(1)
    expect(fake.requests[0]?.model).toBe('fake-mini')
  })

  test('no intent leads into the conversation node, whose reply comes from the LLM', async () => {
    const r = await l.api('POST', '/api/agents/agt_llm/workflow/test-run', { body: { inputs: [{ role: 'user', content: 'when are you open?' }] } })
    expect(r.body).toMatchObject({ path: ['start', 'faq'], finalNode: 'faq', finalAction: 'awaiting_input' })
    expect(r.body.responses.at(-1)).toEqual({ nodeId: 'faq', output: 'Our opening hours are nine to five.' })
  })

  test('an LLM outage gets 503 naming the node and the edge', async () => {
    const prev = fake.answer
    fake.answer = () => ({ status: 500, message: 'boom' })
    try {
      const r = await l.api('POST', '/api/agents/agt_llm/workflow/test-run', { body: { inputs: [{ role: 'user', content: 'cancel' }] } })
      expect(r.status).toBe(503)
      expect(r.body.error.details).toEqual({ reason: 'llm_failed', nodeId: 'start', edgeId: 'wants_booking' })
    } finally {
      fake.answer = prev
    }
  })
})
