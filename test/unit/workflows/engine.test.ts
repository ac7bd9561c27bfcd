import { describe, expect, test } from 'bun:test'
import { type TranscriptEntry, testRun, WorkflowEngine, WorkflowRunError } from '../../../src/features/workflows/engine/index.ts'
import type { WorkflowGraph } from '../../../src/features/workflows/workflow.model.ts'
import { dtmf, edge, graph, intent, kw, node, otherwise, re, reception, v } from './graphs.ts'

const opts = { maxVisits: 5, today: () => '2026-11-21' }
const user = (...lines: string[]): TranscriptEntry[] => lines.map((content) => ({ role: 'user', content }))
const vars = { name: 'Ada', company: 'Acme' }

interface Case {
  name: string
  graph?: WorkflowGraph
  inputs: TranscriptEntry[]
  variables?: Record<string, unknown>
  path: string[]
  finalNode: string
  finalAction: string
  outputs?: string[]
  expectVars?: Record<string, unknown>
}

const orders = graph(
  [
    node('start', 'start'),
    node('ask', 'say', { text: 'What can I do for you?' }),
    node('order', 'end', { text: 'Looking up your order.' }),
    node('other', 'end'),
  ],
  [edge('start', 'ask'), edge('ask', 'order', re('\\border\\s+[A-Z]{2}\\d{4}\\b')), edge('ask', 'other', kw('nothing'))],
)

const tiers = graph(
  [
    node('start', 'start'),
    node('route', 'condition'),
    node('gold', 'end', { text: 'Gold line for {{name}}.' }),
    node('big', 'end', { text: 'Big spender: {{spend}}.' }),
    node('regular', 'end', { text: 'Regular line.' }),
  ],
  [
    edge('start', 'route'),
    edge('route', 'gold', v('tier', 'eq', 'GOLD')),
    edge('route', 'big', v('spend', 'gt', 100)),
    edge('route', 'regular', otherwise),
  ],
)

const cases: Case[] = [
  {
    name: 'a keyword in the caller\'s words picks its branch, case and punctuation ignored',
    inputs: user("I'd like to talk to SALES, please!"),
    variables: vars,
    path: ['start', 'menu', 'sales'],
    finalNode: 'sales',
    finalAction: 'transfer',
    outputs: ['Hello Ada, thanks for calling Acme.', 'Say sales or press 1; say support or press 2.', 'Connecting you to sales.'],
  },
  {
    name: 'a phrase keyword matches only as whole words',
    inputs: user('i want to buy something'),
    path: ['start', 'menu', 'sales'],
    finalNode: 'sales',
    finalAction: 'transfer',
  },
  {
    name: 'a word that merely contains a keyword does not match, so the menu repeats',
    inputs: user('wholesales', 'support'),
    path: ['start', 'menu', 'menu', 'ask_pin'],
    finalNode: 'ask_pin',
    finalAction: 'awaiting_input',
  },
  {
    name: 'a DTMF key picks its branch',
    inputs: user('dtmf:1'),
    path: ['start', 'menu', 'sales'],
    finalNode: 'sales',
    finalAction: 'transfer',
  },
  {
    name: 'a spoken digit is not a key press',
    inputs: user('1', 'DTMF: 2'),
    path: ['start', 'menu', 'menu', 'ask_pin'],
    finalNode: 'ask_pin',
    finalAction: 'awaiting_input',
  },
  {
    name: 'a regex on the caller\'s words picks its branch',
    graph: orders,
    inputs: user('where is my order AB1234?'),
    path: ['start', 'ask', 'order'],
    finalNode: 'order',
    finalAction: 'end_call',
  },
  {
    name: 'a variable equal to a value picks its branch (strings compare case-insensitively)',
    graph: tiers,
    inputs: [],
    variables: { tier: 'gold', name: 'Ada' },
    path: ['start', 'route', 'gold'],
    finalNode: 'gold',
    finalAction: 'end_call',
    outputs: ['Gold line for Ada.'],
  },
  {
    name: 'a numeric comparison of a variable picks its branch',
    graph: tiers,
    inputs: [],
    variables: { spend: '250' },
    path: ['start', 'route', 'big'],
    finalNode: 'big',
    finalAction: 'end_call',
    outputs: ['Big spender: 250.'],
  },
  {
    name: 'else is taken when no other condition holds',
    graph: tiers,
    inputs: [],
    variables: { spend: 99 },
    path: ['start', 'route', 'regular'],
    finalNode: 'regular',
    finalAction: 'end_call',
  },
  {
    name: 'collect extracts spoken digits into a variable after a reprompt and fills it into later text',
    inputs: user('dtmf:2', 'I am not sure', 'it is four one two nine'),
    variables: vars,
    path: ['start', 'menu', 'ask_pin', 'check_pin', 'bye'],
    finalNode: 'bye',
    finalAction: 'end_call',
    outputs: [
      'Hello Ada, thanks for calling Acme.',
      'Say sales or press 1; say support or press 2.',
      'Please tell me your four digit PIN.',
      "Sorry, I didn't get that. Please tell me your four digit PIN.",
      'Your PIN 4129 is noted. Goodbye Ada.',
    ],
    expectVars: { pin: '4129' },
  },
  {
    name: 'collect accepts DTMF digits and the collected value drives a comparison',
    inputs: user('support', 'dtmf:9321'),
    path: ['start', 'menu', 'ask_pin', 'check_pin', 'vip'],
    finalNode: 'vip',
    finalAction: 'transfer',
    expectVars: { pin: '9321' },
  },
  {
    name: 'collect gives up after maxAttempts and its unset variable routes to a human',
    inputs: user('help', 'no idea', '12', 'twelve'),
    path: ['start', 'menu', 'ask_pin', 'human'],
    finalNode: 'human',
    finalAction: 'transfer',
  },
  {
    name: 'a collect that runs out of attempts on a later visit drops the value of the earlier one',
    graph: graph(
      [
        node('start', 'start'),
        node('ask', 'collect', { prompt: 'PIN?', kind: 'digits', variable: 'pin', maxAttempts: 2 }),
        node('check', 'condition'),
        node('ok', 'end'),
        node('human', 'transfer', { target: '+14155552222' }),
      ],
      [edge('start', 'ask'), edge('ask', 'human', v('pin', 'unset')), edge('ask', 'check'), edge('check', 'ok', v('pin', 'eq', '1234')), edge('check', 'ask')],
    ),
    inputs: user('1111', 'no idea', 'still no idea'),
    path: ['start', 'ask', 'check', 'ask', 'human'],
    finalNode: 'human',
    finalAction: 'transfer',
    outputs: ['PIN?', 'PIN?', "Sorry, I didn't get that. PIN?"],
  },
  {
    name: 'a transcript that runs out leaves the run waiting on the node that listens',
    inputs: [],
    path: ['start', 'menu'],
    finalNode: 'menu',
    finalAction: 'awaiting_input',
  },
  {
    name: 'lines after the run ended are not used',
    inputs: user('dtmf:1', 'support'),
    path: ['start', 'menu', 'sales'],
    finalNode: 'sales',
    finalAction: 'transfer',
  },
  {
    name: 'assistant lines are context only and do not move the workflow',
    inputs: [{ role: 'assistant', content: 'support' }, { role: 'user', content: 'sales' }],
    path: ['start', 'menu', 'sales'],
    finalNode: 'sales',
    finalAction: 'transfer',
  },
  {
    name: 'the loop guard ends a caller who never answers the menu, at the menu\'s sixth visit',
    inputs: user('what', 'huh', 'eh', 'hm', 'no', 'never', 'sales'),
    path: ['start', 'menu', 'menu', 'menu', 'menu', 'menu', 'menu'],
    finalNode: 'menu',
    finalAction: 'loop_limit',
  },
  {
    name: 'the loop guard ends a cycle of nodes that never wait, using the graph\'s own maxVisits',
    graph: graph(
      [node('start', 'start'), node('a', 'condition'), node('b', 'say', { text: 'round {{n}}' }), node('end', 'end')],
      [edge('start', 'a'), edge('a', 'end', v('never', 'set')), edge('a', 'b', otherwise), edge('b', 'a')],
      2,
    ),
    inputs: [],
    variables: { n: 1 },
    path: ['start', 'a', 'b', 'a', 'b', 'a'],
    finalNode: 'a',
    finalAction: 'loop_limit',
    outputs: ['round 1', 'round 1'],
  },
  {
    name: 'the loop guard also ends a cycle of nodes named __proto__ and toString (visits counted by own key)',
    graph: graph(
      [node('start', 'start'), node('__proto__', 'condition'), node('toString', 'say', { text: 'again' }), node('end', 'end')],
      [edge('start', '__proto__'), edge('__proto__', 'end', v('never', 'set')), edge('__proto__', 'toString', otherwise), edge('toString', '__proto__')],
      2,
    ),
    inputs: [],
    path: ['start', '__proto__', 'toString', '__proto__', 'toString', '__proto__'],
    finalNode: '__proto__',
    finalAction: 'loop_limit',
  },
  {
    name: 'a node that does not listen and has no matching edge ends with no_route',
    graph: graph(
      [node('start', 'start'), node('c', 'condition'), node('x', 'end')],
      [edge('start', 'c'), edge('c', 'x', v('flag', 'eq', true))],
    ),
    inputs: [],
    path: ['start', 'c'],
    finalNode: 'c',
    finalAction: 'no_route',
  },
  {
    name: 'placeholders of unset variables are left out and nested paths are read',
    graph: graph(
      [node('start', 'start', { text: 'Hi {{ name }}{{missing}}{{constructor}}{{name.length}}, order {{order.id}} is {{order.state}}.' }), node('bye', 'end')],
      [edge('start', 'bye')],
    ),
    inputs: [],
    variables: { name: 'Bo', order: { id: 42, state: 'shipped' } },
    path: ['start', 'bye'],
    finalNode: 'bye',
    finalAction: 'end_call',
    outputs: ['Hi Bo, order 42 is shipped.'],
  },
]

describe('workflow engine over a transcript', () => {
  for (const c of cases) {
    test(c.name, async () => {
      const r = await testRun(c.graph ?? reception, c.inputs, { ...opts, variables: c.variables ?? {} })
      expect({ path: r.path, finalNode: r.finalNode, finalAction: r.finalAction as string }).toEqual({ path: c.path, finalNode: c.finalNode, finalAction: c.finalAction })
      if (c.outputs) expect(r.responses.map((x) => x.output)).toEqual(c.outputs)
      for (const x of r.responses) expect(r.path).toContain(x.nodeId)
      if (c.expectVars) expect(r.variables).toMatchObject(c.expectVars)
    })
  }

  test('runs without an LLM are deterministic: the same transcript gives the same result', async () => {
    const inputs = user('support', 'maybe', 'dtmf:9999')
    const a = await testRun(reception, inputs, opts)
    const b = await testRun(reception, inputs, opts)
    expect(a).toEqual(b)
    expect(a.finalNode).toBe('vip')
  })
})

describe('workflow engine turn by turn', () => {
  test('receive returns a new state and leaves the one passed in unchanged', async () => {
    const engine = new WorkflowEngine(reception, opts)
    const first = await engine.start(vars)
    const before = structuredClone(first.state)
    const second = await engine.receive(first.state, { kind: 'dtmf', digits: '2' })
    expect(first.state).toEqual(before)
    expect(second.state.nodeId).toBe('ask_pin')
    expect(second.visited).toEqual(['ask_pin'])
    expect(second.responses).toEqual([{ nodeId: 'ask_pin', output: 'Please tell me your four digit PIN.' }])
    expect(second.final).toBeNull()
  })

  test('a transfer step carries the target for the voice driver and input afterwards changes nothing', async () => {
    const engine = new WorkflowEngine(reception, opts)
    const step = await engine.receive((await engine.start(vars)).state, { kind: 'speech', text: 'sales' })
    expect(step.final).toEqual({ action: 'transfer', nodeId: 'sales', target: '+14155551111' })
    const after = await engine.receive(step.state, { kind: 'speech', text: 'support' })
    expect(after.state).toEqual(step.state)
    expect(after.visited).toEqual([])
  })
})

describe('nodes and conditions that need an LLM or a tool', () => {
  const llmGraph = graph(
    [node('start', 'start', { text: 'How can I help?' }), node('book', 'end'), node('chat', 'conversation', { instructions: 'Help {{name}}.' })],
    [edge('start', 'book', kw('book')), edge('start', 'chat', intent('wants small talk'), 'smalltalk'), edge('start', 'book', otherwise)],
  )

  test('an intent edge with no LLM configured fails with an error naming the node and the edge', async () => {
    const err = await testRun(llmGraph, user('tell me a joke'), opts).catch((e) => e)
    expect(err).toBeInstanceOf(WorkflowRunError)
    expect(err).toMatchObject({ reason: 'llm_not_configured', nodeId: 'start', edgeId: 'smalltalk' })
    expect(err.message).toContain('edge "smalltalk" of node "start"')
  })

  test('a keyword edge before the intent edge decides without asking for an LLM', async () => {
    const r = await testRun(llmGraph, user('I want to book'), opts)
    expect(r.finalNode).toBe('book')
  })

  test('a conversation node with no LLM configured fails naming the node', async () => {
    const g = graph([node('start', 'start'), node('chat', 'conversation', { instructions: 'Chat.' }), node('e', 'end')], [edge('start', 'chat'), edge('chat', 'e', kw('bye'))])
    const err = await testRun(g, [], opts).catch((e) => e)
    expect(err).toMatchObject({ reason: 'llm_not_configured', nodeId: 'chat' })
    expect(err.message).toBe('conversation node "chat" needs an LLM, and no LLM is configured')
  })

  const toolGraph = graph(
    [
      node('start', 'start'),
      node('ask', 'collect', { prompt: 'Order number?', kind: 'regex', pattern: '([A-Z]{2}\\d{4})', variable: 'order_id' }),
      node('lookup', 'tool', { tool: 'http_request', arguments: { url: 'https://shop.example/orders/{{order_id}}', retries: 1 }, saveAs: 'order', assign: { status: 'body.status' } }),
      node('sorry', 'end', { text: 'Sorry, the order system is down.' }),
      node('tell', 'end', { text: 'Order {{order_id}} is {{status}}.' }),
    ],
    [edge('start', 'ask'), edge('ask', 'lookup'), edge('lookup', 'sorry', v('tool_error', 'set')), edge('lookup', 'tell', otherwise)],
  )

  test('a tool node passes filled arguments and keeps its result in variables', async () => {
    const calls: unknown[] = []
    const tools = {
      async run(tool: string, args: Record<string, unknown>) {
        calls.push({ tool, args })
        return { body: { status: `shipped to ${String(args.url).split('/').pop()}` } }
      },
    }
    const r = await testRun(toolGraph, user('it is ab1234'), { ...opts, tools })
    expect(calls).toEqual([{ tool: 'http_request', args: { url: 'https://shop.example/orders/ab1234', retries: 1 } }])
    expect(r.responses.at(-1)).toEqual({ nodeId: 'tell', output: 'Order ab1234 is shipped to ab1234.' })
    expect(r.variables.order).toEqual({ body: { status: 'shipped to ab1234' } })
  })

  test('a failing tool sets tool_error and its branch is taken', async () => {
    const tools = { run: async () => Promise.reject(new Error('HTTP 503')) }
    const r = await testRun(toolGraph, user('AB1234'), { ...opts, tools })
    expect(r.finalNode).toBe('sorry')
    expect(r.variables.tool_error).toBe('HTTP 503')
  })

  test('a tool node with no tool runner fails naming the node', async () => {
    const err = await testRun(toolGraph, user('AB1234'), opts).catch((e) => e)
    expect(err).toMatchObject({ reason: 'tool_not_available', nodeId: 'lookup' })
  })
})
