import { describe, expect, test } from 'bun:test'
import { type ValidationRule, validateWorkflow } from '../../../src/features/workflows/validate.ts'
import { reception } from './graphs.ts'

type Raw = Parameters<typeof validateWorkflow>[0]
const base = (): Raw => structuredClone(reception) as Raw
const mutate = (f: (w: Raw) => void): Raw => {
  const w = base()
  f(w)
  return w
}

interface Case {
  rule: ValidationRule
  name: string
  input: Raw
  path: string
  names: string
  nodeId?: string
  edgeIndex?: number
}

const cases: Case[] = [
  {
    rule: 'start_count',
    name: 'no start node',
    input: mutate((w) => {
      w.nodes = w.nodes.filter((n) => n.id !== 'start')
      w.edges = w.edges.filter((e) => (e as { from: string }).from !== 'start')
    }),
    path: 'nodes',
    names: 'exactly one start node; it has none',
  },
  {
    rule: 'start_count',
    name: 'two start nodes',
    input: mutate((w) => {
      w.nodes.push({ id: 'start2', type: 'start', config: {} })
      w.edges.push({ from: 'start2', to: 'menu' })
    }),
    path: 'nodes',
    names: 'it has 2: "start", "start2"',
    nodeId: 'start2',
  },
  {
    rule: 'duplicate_node_id',
    name: 'two nodes with one id',
    input: mutate((w) => w.nodes.push({ id: 'menu', type: 'end', config: {} })),
    path: 'nodes[8].id',
    names: 'node id "menu" is used by nodes[1] and nodes[8]',
    nodeId: 'menu',
  },
  {
    rule: 'duplicate_edge_id',
    name: 'two edges with one id',
    input: mutate((w) => {
      ;(w.edges[1] as { id: string }).id = 'e'
      ;(w.edges[2] as { id: string }).id = 'e'
    }),
    path: 'edges[2].id',
    names: 'edge id "e" is used by edges[1] and edges[2]',
    edgeIndex: 2,
  },
  {
    rule: 'edge_end_missing',
    name: 'an edge to a node that does not exist',
    input: mutate((w) => w.edges.push({ id: 'typo', from: 'menu', to: 'salse', condition: { type: 'dtmf', digits: '3' } })),
    path: 'edges[9].to',
    names: 'edge "typo": to node "salse" does not exist',
    edgeIndex: 9,
  },
  {
    rule: 'edge_end_missing',
    name: 'an edge from a node that does not exist',
    input: mutate((w) => w.edges.push({ from: 'ghost', to: 'menu' })),
    path: 'edges[9].from',
    names: 'edge 9 (ghost -> menu): from node "ghost" does not exist',
    edgeIndex: 9,
  },
  {
    rule: 'unreachable',
    name: 'a node no path from start leads to',
    input: mutate((w) => w.nodes.push({ id: 'orphan', type: 'end', config: {} })),
    path: 'nodes[8]',
    names: 'node "orphan" cannot be reached from start node "start"',
    nodeId: 'orphan',
  },
  {
    rule: 'no_terminal',
    name: 'no transfer or end node',
    input: {
      nodes: [{ id: 's', type: 'start', config: {} }, { id: 'a', type: 'say', config: { text: 'hi' } }],
      edges: [{ from: 's', to: 'a' }, { from: 'a', to: 's' }],
    },
    path: 'nodes',
    names: 'at least one terminal node (transfer or end)',
  },
  {
    rule: 'dead_end',
    name: 'a non-terminal node without outgoing edges',
    input: mutate((w) => {
      w.nodes.push({ id: 'limbo', type: 'say', config: { text: 'hmm' } })
      w.edges.push({ from: 'menu', to: 'limbo', condition: { type: 'dtmf', digits: '0' } })
    }),
    path: 'nodes[8]',
    names: 'say node "limbo" has no outgoing edge',
    nodeId: 'limbo',
  },
  {
    rule: 'terminal_has_edges',
    name: 'an edge leaving an end node',
    input: mutate((w) => w.edges.push({ from: 'bye', to: 'menu' })),
    path: 'edges[9]',
    names: 'end node "bye" ends the call and must have no outgoing edges; edge 9 (bye -> menu) leaves it',
    nodeId: 'bye',
    edgeIndex: 9,
  },
  {
    rule: 'multiple_else',
    name: 'two else edges from one node',
    input: mutate((w) => w.edges.push({ from: 'check_pin', to: 'human', condition: { type: 'else' } })),
    path: 'edges[9]',
    names: 'node "check_pin" has more than one else (unconditional) edge',
    nodeId: 'check_pin',
  },
  {
    rule: 'node_config',
    name: 'a say node without text',
    input: mutate((w) => ((w.nodes[1] as { config: object }).config = {})),
    path: 'nodes[1].config.text',
    names: 'say node "menu": config.text',
    nodeId: 'menu',
  },
  {
    rule: 'node_config',
    name: 'a collect node with an unknown kind',
    input: mutate((w) => ((w.nodes[3] as { config: Record<string, unknown> }).config.kind = 'colour')),
    path: 'nodes[3].config.kind',
    names: 'collect node "ask_pin": config.kind',
    nodeId: 'ask_pin',
  },
  {
    rule: 'node_config',
    name: 'a collect node of kind regex without a pattern',
    input: mutate((w) => ((w.nodes[3] as { config: Record<string, unknown> }).config.kind = 'regex')),
    path: 'nodes[3].config.pattern',
    names: 'collect node "ask_pin": config.pattern is required when kind is regex',
    nodeId: 'ask_pin',
  },
  {
    rule: 'node_config',
    name: 'a collect node whose regex does not compile',
    input: mutate((w) => Object.assign((w.nodes[3] as { config: object }).config, { kind: 'regex', pattern: '([a-z' })),
    path: 'nodes[3].config.pattern',
    names: 'config.pattern is not a valid regex',
    nodeId: 'ask_pin',
  },
  {
    rule: 'node_config',
    name: 'a collect variable named __proto__',
    input: mutate((w) => ((w.nodes[3] as { config: Record<string, unknown> }).config.variable = '__proto__')),
    path: 'nodes[3].config.variable',
    names: 'collect node "ask_pin": config.variable must match',
    nodeId: 'ask_pin',
  },
  {
    rule: 'node_config',
    name: 'a tool assigning to a variable named __proto__',
    input: mutate((w) => {
      w.nodes.push({ id: 'crm', type: 'tool', config: { tool: 'http_request', assign: JSON.parse('{"__proto__": "body"}') } })
      w.edges[0] = { from: 'start', to: 'crm' }
      w.edges.push({ from: 'crm', to: 'menu' })
    }),
    path: 'nodes[8].config.assign.__proto__',
    names: 'tool node "crm": config.assign.__proto__ is not a usable variable name',
    nodeId: 'crm',
  },
  {
    rule: 'node_config',
    name: 'minDigits above maxDigits',
    input: mutate((w) => Object.assign((w.nodes[3] as { config: object }).config, { minDigits: 6 })),
    path: 'nodes[3].config.minDigits',
    names: 'config.minDigits must not exceed maxDigits',
    nodeId: 'ask_pin',
  },
  {
    rule: 'node_config',
    name: 'a transfer target that is neither E.164 nor a SIP URI',
    input: mutate((w) => ((w.nodes[2] as { config: Record<string, unknown> }).config.target = '555-1234')),
    path: 'nodes[2].config.target',
    names: 'transfer node "sales": config.target must be an E.164 number',
    nodeId: 'sales',
  },
  {
    rule: 'node_config',
    name: 'an unknown config field',
    input: mutate((w) => ((w.nodes[0] as { config: Record<string, unknown> }).config.greting = 'typo')),
    path: 'nodes[0].config.greting',
    names: 'start node "start": config.greting',
    nodeId: 'start',
  },
  {
    rule: 'edge_shape',
    name: 'an edge with an unknown condition type',
    input: mutate((w) => ((w.edges[1] as { condition: unknown }).condition = { type: 'vibes' })),
    path: 'edges[1].condition.type',
    names: 'edge 1 (menu -> sales): condition.type must be one of keywords, regex, dtmf, variable, intent, else',
    edgeIndex: 1,
  },
  {
    rule: 'edge_shape',
    name: 'a regex condition that does not compile',
    input: mutate((w) => ((w.edges[1] as { condition: unknown }).condition = { type: 'regex', pattern: '(' })),
    path: 'edges[1].condition.pattern',
    names: 'edge 1 (menu -> sales): condition.pattern is not a valid regex',
    edgeIndex: 1,
  },
  {
    rule: 'edge_shape',
    name: 'a regex that can backtrack exponentially',
    input: mutate((w) => ((w.edges[1] as { condition: unknown }).condition = { type: 'regex', pattern: '^(\\w+\\s?)+$' })),
    path: 'edges[1].condition.pattern',
    names: 'condition.pattern repeats a group that itself repeats',
    edgeIndex: 1,
  },
  {
    rule: 'edge_shape',
    name: 'a regex whose repeated group hides its repeat one group deeper',
    input: mutate((w) => ((w.edges[1] as { condition: unknown }).condition = { type: 'regex', pattern: '((a+))+' })),
    path: 'edges[1].condition.pattern',
    names: 'condition.pattern repeats a group that itself repeats',
    edgeIndex: 1,
  },
  {
    rule: 'edge_shape',
    name: 'a regex of overlapping repeated alternatives',
    input: mutate((w) => ((w.edges[1] as { condition: unknown }).condition = { type: 'regex', pattern: '^(a|aa)+$' })),
    path: 'edges[1].condition.pattern',
    names: 'condition.pattern repeats a group of alternatives that can match the same text',
    edgeIndex: 1,
  },
  {
    rule: 'edge_shape',
    name: 'a regex of three open-ended repeats (polynomial backtracking)',
    input: mutate((w) => ((w.edges[1] as { condition: unknown }).condition = { type: 'regex', pattern: '.*.*.*sales' })),
    path: 'edges[1].condition.pattern',
    names: 'condition.pattern has 3 open-ended repeats',
    edgeIndex: 1,
  },
  {
    rule: 'edge_shape',
    name: 'a comparison without a value',
    input: mutate((w) => ((w.edges[7] as { condition: unknown }).condition = { type: 'variable', variable: 'pin', op: 'gt' })),
    path: 'edges[7].condition.value',
    names: 'condition.value is required for op gt',
    edgeIndex: 7,
  },
  {
    rule: 'edge_shape',
    name: 'an edge that is not an object',
    input: mutate((w) => w.edges.push('menu->sales')),
    path: 'edges[9]',
    names: 'edge 9 (? -> ?)',
    edgeIndex: 9,
  },
]

describe('workflow validation', () => {
  test('the reference graph is valid and comes back typed', () => {
    const r = validateWorkflow(base())
    expect(r.ok).toBe(true)
    if (r.ok) expect(r.graph.nodes.map((n) => n.id)).toEqual(reception.nodes.map((n) => n.id))
  })

  for (const c of cases) {
    test(`${c.rule}: ${c.name} is refused with an issue naming it`, () => {
      const r = validateWorkflow(c.input)
      expect(r.ok).toBe(false)
      if (r.ok) return
      const issue = r.issues.find((i) => i.rule === c.rule && i.path === c.path)
      expect(issue, JSON.stringify(r.issues)).toBeDefined()
      expect(issue?.message).toContain(c.names)
      if (c.nodeId) expect(issue?.nodeId).toBe(c.nodeId)
      if (c.edgeIndex !== undefined) expect(issue?.edgeIndex).toBe(c.edgeIndex)
      expect(r.issues.every((i) => i.nodeId !== undefined || i.edgeIndex !== undefined || i.path === 'nodes')).toBe(true)
    })
  }

  test('tool_not_enabled: a tool node may only call a tool the agent has enabled', () => {
    const withTool = mutate((w) => {
      w.nodes.push({ id: 'crm', type: 'tool', config: { tool: 'http_request' } })
      w.edges[0] = { from: 'start', to: 'crm' }
      w.edges.push({ from: 'crm', to: 'menu' })
    })
    expect(validateWorkflow(withTool).ok).toBe(true)
    expect(validateWorkflow(withTool, { enabledTools: ['http_request'] }).ok).toBe(true)
    const r = validateWorkflow(withTool, { enabledTools: [] })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.issues).toEqual([{ rule: 'tool_not_enabled', path: 'nodes[8].config.tool', nodeId: 'crm', message: 'tool node "crm" calls http_request, which is not enabled for this agent (enabled: none)' }])
  })

  test('every problem of a graph is reported at once', () => {
    const r = validateWorkflow(mutate((w) => {
      w.nodes.push({ id: 'orphan', type: 'end', config: {} })
      w.edges.push({ from: 'bye', to: 'nowhere' })
    }))
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.issues.map((i) => i.rule).sort()).toEqual(['edge_end_missing', 'terminal_has_edges', 'unreachable'])
  })
})
