import { Value } from '@sinclair/typebox/value'
import {
  NODE_CONFIGS,
  type NodeType,
  TERMINAL_TYPES,
  type WorkflowEdge,
  WorkflowEdge as EdgeSchema,
  Condition as ConditionSchema,
  type WorkflowGraph,
  type WorkflowNode,
} from './workflow.model.ts'

export type ValidationRule =
  | 'node_config'
  | 'edge_shape'
  | 'duplicate_node_id'
  | 'duplicate_edge_id'
  | 'start_count'
  | 'edge_end_missing'
  | 'unreachable'
  | 'no_terminal'
  | 'dead_end'
  | 'terminal_has_edges'
  | 'multiple_else'

export interface WorkflowIssue {
  rule: ValidationRule
  /** Field path in the request body: `nodes[2].config.kind`, `edges[0].to`. */
  path: string
  message: string
  nodeId?: string
  edgeIndex?: number
  edgeId?: string
}

export type ValidationResult = { ok: true; graph: WorkflowGraph } | { ok: false; issues: WorkflowIssue[] }

interface RawNode {
  id: string
  type: NodeType
  config?: Record<string, unknown>
}
interface RawWorkflow {
  nodes: RawNode[]
  edges: unknown[]
  settings?: { maxVisits?: number }
}

const E164 = /^\+[1-9]\d{6,14}$/
const SIP_URI = /^sips?:[^\s@]+(@[^\s@]+)?$/i

const edgeLabel = (e: Partial<WorkflowEdge>, i: number) =>
  e.id ? `edge "${e.id}"` : `edge ${i} (${String(e.from ?? '?')} -> ${String(e.to ?? '?')})`

// A group holding a repeat that is itself repeated, like (a+)+ or (\w*)*: the shape that makes a
// backtracking regex take exponential time. Caller speech is matched against these patterns, and
// JavaScript cannot interrupt a running match, so such patterns are refused outright.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\d*\})/

function regexError(pattern: string, flags = ''): string | undefined {
  try {
    new RegExp(pattern, flags)
  } catch (err) {
    return `is not a valid regex: ${(err as Error).message}`
  }
  if (NESTED_QUANTIFIER.test(pattern)) return 'repeats a group that itself repeats (like (a+)+), which can take exponential time; simplify it'
  return undefined
}

/** Per-type rules a JSON schema cannot state. */
function nodeRuleErrors(node: WorkflowNode): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = []
  if (node.type === 'collect') {
    const c = node.config
    if (c.kind === 'regex' && c.pattern === undefined) out.push({ field: 'pattern', message: 'is required when kind is regex' })
    if (c.pattern !== undefined) {
      const err = regexError(c.pattern, 'i')
      if (err) out.push({ field: 'pattern', message: err })
    }
    if (c.minDigits !== undefined && c.maxDigits !== undefined && c.minDigits > c.maxDigits) {
      out.push({ field: 'minDigits', message: 'must not exceed maxDigits' })
    }
  }
  if (node.type === 'transfer' && !E164.test(node.config.target) && !SIP_URI.test(node.config.target)) {
    out.push({ field: 'target', message: 'must be an E.164 number (+15551234567) or a SIP URI (sip:user@host)' })
  }
  return out
}

function edgeRuleErrors(edge: WorkflowEdge): { field: string; message: string }[] {
  const c = edge.condition
  if (!c) return []
  if (c.type === 'regex') {
    const err = regexError(c.pattern, c.flags)
    if (err) return [{ field: 'condition.pattern', message: err }]
  }
  if (c.type === 'variable' && c.op !== 'set' && c.op !== 'unset' && c.value === undefined) {
    return [{ field: 'condition.value', message: `is required for op ${c.op}` }]
  }
  return []
}

type Schema = Parameters<typeof Value.Errors>[0]

function humanize(message: string, schema: { anyOf?: { const?: unknown }[] }): string {
  if (message === 'Expected required property') return 'is required'
  if (message === 'Unexpected property') return 'is not a known field'
  if (schema.anyOf?.every((s) => s.const !== undefined)) return `must be one of ${schema.anyOf.map((s) => String(s.const)).join(', ')}`
  return message.replace(/^Expected string to match/, 'must match').replace(/^Expected /, 'must be ')
}

function schemaMessages(schema: Schema, value: unknown, max = 3): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = []
  for (const e of Value.Errors(schema, value)) {
    const field = e.path.split('/').filter(Boolean).join('.')
    if (out.some((o) => o.field === field || field.startsWith(`${o.field}.`))) continue
    out.push({ field, message: humanize(e.message, e.schema as never) })
    if (out.length >= max) break
  }
  return out
}

const CONDITION_TYPES = (ConditionSchema.anyOf as { properties: { type: { const: string } } }[]).map((s) => s.properties.type.const)

/** Checks a condition against the schema of its own type, so messages name the exact field. */
function conditionMessages(condition: unknown): { field: string; message: string }[] {
  const type = condition && typeof condition === 'object' ? (condition as { type?: unknown }).type : undefined
  const i = CONDITION_TYPES.indexOf(type as string)
  if (i < 0) return [{ field: 'condition.type', message: `must be one of ${CONDITION_TYPES.join(', ')}` }]
  return schemaMessages(ConditionSchema.anyOf[i] as Schema, condition).map((m) => ({ field: m.field ? `condition.${m.field}` : 'condition', message: m.message }))
}

function edgeShapeMessages(raw: unknown): { field: string; message: string }[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [{ field: '', message: 'must be an object {from, to, condition}' }]
  const { condition, ...rest } = raw as Record<string, unknown>
  const out = schemaMessages(EdgeSchema, rest)
  if (condition !== undefined) out.push(...conditionMessages(condition))
  return out
}

/**
 * Checks a workflow graph. Pure: returns every issue found (empty when valid) together with the
 * typed graph; each issue names the node or the edge it is about.
 */
export function validateWorkflow(input: RawWorkflow): ValidationResult {
  const issues: WorkflowIssue[] = []
  const nodes: WorkflowNode[] = []
  const seen = new Map<string, number>()

  input.nodes.forEach((raw, i) => {
    const path = `nodes[${i}]`
    const first = seen.get(raw.id)
    if (first !== undefined) {
      issues.push({ rule: 'duplicate_node_id', path: `${path}.id`, nodeId: raw.id, message: `node id "${raw.id}" is used by nodes[${first}] and ${path}` })
      return
    }
    seen.set(raw.id, i)
    const candidate = { id: raw.id, type: raw.type, config: raw.config ?? {} }
    const schemaErrors = schemaMessages(NODE_CONFIGS[raw.type], candidate.config)
    const ruleErrors = schemaErrors.length ? [] : nodeRuleErrors(candidate as WorkflowNode)
    for (const e of [...schemaErrors, ...ruleErrors]) {
      const field = e.field ? `${path}.config.${e.field}` : `${path}.config`
      issues.push({ rule: 'node_config', path: field, nodeId: raw.id, message: `${raw.type} node "${raw.id}": config${e.field ? `.${e.field}` : ''} ${e.message}` })
    }
    nodes.push(candidate as WorkflowNode)
  })

  const byId = new Map(nodes.map((n) => [n.id, n]))
  const edges: { edge: WorkflowEdge; index: number }[] = []
  const edgeIds = new Map<string, number>()
  input.edges.forEach((raw, i) => {
    const path = `edges[${i}]`
    const partial = (raw && typeof raw === 'object' ? raw : {}) as Partial<WorkflowEdge>
    const label = edgeLabel(partial, i)
    const shape = edgeShapeMessages(raw)
    const errors = shape.length ? shape : edgeRuleErrors(raw as WorkflowEdge)
    for (const e of errors) {
      issues.push({ rule: 'edge_shape', path: e.field ? `${path}.${e.field}` : path, edgeIndex: i, edgeId: partial.id, message: `${label}: ${e.field || 'edge'} ${e.message}` })
    }
    // An edge with a bad condition still joins the graph checks, so one mistake is reported once.
    if (typeof partial.from !== 'string' || typeof partial.to !== 'string') return
    const edge = raw as WorkflowEdge
    if (edge.id !== undefined) {
      const first = edgeIds.get(edge.id)
      if (first !== undefined) issues.push({ rule: 'duplicate_edge_id', path: `${path}.id`, edgeIndex: i, edgeId: edge.id, message: `edge id "${edge.id}" is used by edges[${first}] and ${path}` })
      else edgeIds.set(edge.id, i)
    }
    for (const end of ['from', 'to'] as const) {
      if (!byId.has(edge[end])) {
        issues.push({ rule: 'edge_end_missing', path: `${path}.${end}`, edgeIndex: i, edgeId: edge.id, message: `${label}: ${end} node "${edge[end]}" does not exist` })
      }
    }
    edges.push({ edge, index: i })
  })

  const starts = nodes.filter((n) => n.type === 'start')
  if (starts.length !== 1) {
    const which = starts.map((s) => `"${s.id}"`).join(', ')
    issues.push({
      rule: 'start_count',
      path: 'nodes',
      nodeId: starts[1]?.id,
      message: starts.length === 0 ? 'the workflow needs exactly one start node; it has none' : `the workflow needs exactly one start node; it has ${starts.length}: ${which}`,
    })
  }
  if (!nodes.some((n) => TERMINAL_TYPES.includes(n.type))) {
    issues.push({ rule: 'no_terminal', path: 'nodes', message: 'the workflow needs at least one terminal node (transfer or end)' })
  }

  const outgoing = new Map<string, { edge: WorkflowEdge; index: number }[]>()
  for (const e of edges) {
    if (!outgoing.has(e.edge.from)) outgoing.set(e.edge.from, [])
    outgoing.get(e.edge.from)?.push(e)
  }
  for (const node of nodes) {
    const out = outgoing.get(node.id) ?? []
    const path = `nodes[${seen.get(node.id)}]`
    const terminal = TERMINAL_TYPES.includes(node.type)
    if (terminal && out.length) {
      const first = out[0] as { edge: WorkflowEdge; index: number }
      issues.push({ rule: 'terminal_has_edges', path: `edges[${first.index}]`, nodeId: node.id, edgeIndex: first.index, edgeId: first.edge.id, message: `${node.type} node "${node.id}" ends the call and must have no outgoing edges; ${edgeLabel(first.edge, first.index)} leaves it` })
    }
    if (!terminal && !out.length) {
      issues.push({ rule: 'dead_end', path, nodeId: node.id, message: `${node.type} node "${node.id}" has no outgoing edge; only transfer and end nodes may be last` })
    }
    const elses = out.filter((o) => !o.edge.condition || o.edge.condition.type === 'else')
    if (elses.length > 1) {
      const second = elses[1] as { edge: WorkflowEdge; index: number }
      issues.push({ rule: 'multiple_else', path: `edges[${second.index}]`, nodeId: node.id, edgeIndex: second.index, edgeId: second.edge.id, message: `node "${node.id}" has more than one else (unconditional) edge; ${edgeLabel(second.edge, second.index)} can never be taken` })
    }
  }

  if (starts.length === 1) {
    const reached = new Set<string>([(starts[0] as WorkflowNode).id])
    const queue = [(starts[0] as WorkflowNode).id]
    while (queue.length) {
      const id = queue.shift() as string
      for (const { edge } of outgoing.get(id) ?? []) {
        if (byId.has(edge.to) && !reached.has(edge.to)) {
          reached.add(edge.to)
          queue.push(edge.to)
        }
      }
    }
    for (const node of nodes) {
      if (!reached.has(node.id)) {
        issues.push({ rule: 'unreachable', path: `nodes[${seen.get(node.id)}]`, nodeId: node.id, message: `node "${node.id}" cannot be reached from start node "${(starts[0] as WorkflowNode).id}"` })
      }
    }
  }

  if (issues.length) return { ok: false, issues }
  const settings = input.settings?.maxVisits !== undefined ? { maxVisits: input.settings.maxVisits } : {}
  return { ok: true, graph: { nodes, edges: edges.map((e) => e.edge), settings } }
}
