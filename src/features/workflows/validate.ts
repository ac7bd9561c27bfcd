import { edgeRuleErrors, edgeShapeMessages, nodeRuleErrors, schemaMessages } from './validate-shape.ts'
import { NODE_CONFIGS, type NodeType, TERMINAL_TYPES, type WorkflowEdge, type WorkflowGraph, type WorkflowNode } from './workflow.model.ts'

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
  | 'tool_not_enabled'
  | 'no_match_edge'

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

const edgeLabel = (e: Partial<WorkflowEdge>, i: number) =>
  e.id ? `edge "${e.id}"` : `edge ${i} (${String(e.from ?? '?')} -> ${String(e.to ?? '?')})`

type IndexedEdge = { edge: WorkflowEdge; index: number }

export interface ValidationContext {
  /** The agent's enabled tools; when given, tool nodes may only call these. */
  enabledTools?: readonly string[]
}

/**
 * Checks a workflow graph. Pure: returns every issue found, or the typed graph when there are
 * none; each issue names the node or the edge it is about.
 */
export function validateWorkflow(input: RawWorkflow, ctx: ValidationContext = {}): ValidationResult {
  const issues: WorkflowIssue[] = []
  const { nodes, indexOf } = checkNodes(input.nodes, ctx, issues)
  const edges = checkEdges(input.edges, new Set(nodes.map((n) => n.id)), issues)
  checkStructure(nodes, edges, indexOf, issues)
  if (issues.length) return { ok: false, issues }
  const settings = input.settings?.maxVisits !== undefined ? { maxVisits: input.settings.maxVisits } : {}
  return { ok: true, graph: { nodes, edges: edges.map((e) => e.edge), settings } }
}

function checkNodes(input: RawNode[], ctx: ValidationContext, issues: WorkflowIssue[]) {
  const nodes: WorkflowNode[] = []
  const seen = new Map<string, number>()

  input.forEach((raw, i) => {
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
    const enabled = ctx.enabledTools
    if (!schemaErrors.length && raw.type === 'tool' && enabled && !enabled.includes(String(candidate.config.tool))) {
      const list = enabled.length ? enabled.join(', ') : 'none'
      issues.push({ rule: 'tool_not_enabled', path: `${path}.config.tool`, nodeId: raw.id, message: `tool node "${raw.id}" calls ${String(candidate.config.tool)}, which is not enabled for this agent (enabled: ${list})` })
    }
    nodes.push(candidate as WorkflowNode)
  })
  return { nodes, indexOf: seen }
}

function checkEdges(input: unknown[], nodeIds: Set<string>, issues: WorkflowIssue[]): IndexedEdge[] {
  const edges: IndexedEdge[] = []
  const edgeIds = new Map<string, number>()
  input.forEach((raw, i) => {
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
      if (!nodeIds.has(edge[end])) {
        issues.push({ rule: 'edge_end_missing', path: `${path}.${end}`, edgeIndex: i, edgeId: edge.id, message: `${label}: ${end} node "${edge[end]}" does not exist` })
      }
    }
    edges.push({ edge, index: i })
  })
  return edges
}

/** Rules about the graph as a whole: start, terminals, dead ends, else edges, reachability. */
function checkStructure(nodes: WorkflowNode[], edges: IndexedEdge[], indexOf: Map<string, number>, issues: WorkflowIssue[]) {
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

  const outgoing = new Map<string, IndexedEdge[]>()
  for (const e of edges) {
    if (!outgoing.has(e.edge.from)) outgoing.set(e.edge.from, [])
    outgoing.get(e.edge.from)?.push(e)
  }
  for (const node of nodes) {
    const out = outgoing.get(node.id) ?? []
    const path = `nodes[${indexOf.get(node.id)}]`
    const terminal = TERMINAL_TYPES.includes(node.type)
    if (terminal && out.length) {
      const first = out[0] as IndexedEdge
      issues.push({ rule: 'terminal_has_edges', path: `edges[${first.index}]`, nodeId: node.id, edgeIndex: first.index, edgeId: first.edge.id, message: `${node.type} node "${node.id}" ends the call and must have no outgoing edges; ${edgeLabel(first.edge, first.index)} leaves it` })
    }
    if (!terminal && !out.length) {
      issues.push({ rule: 'dead_end', path, nodeId: node.id, message: `${node.type} node "${node.id}" has no outgoing edge; only transfer and end nodes may be last` })
    }
    const noMatch = out.filter((o) => o.edge.condition?.type === 'no_match')
    if (node.type === 'answer' && noMatch.length !== 1) {
      issues.push({ rule: 'no_match_edge', path, nodeId: node.id, message: `answer node "${node.id}" needs exactly one no_match edge (where the call goes when the knowledge bases hold no answer); it has ${noMatch.length}` })
    }
    if (node.type !== 'answer' && noMatch.length) {
      const first = noMatch[0] as IndexedEdge
      issues.push({ rule: 'no_match_edge', path: `edges[${first.index}].condition`, nodeId: node.id, edgeIndex: first.index, edgeId: first.edge.id, message: `${edgeLabel(first.edge, first.index)}: a no_match condition leaves answer nodes only; "${node.id}" is a ${node.type} node` })
    }
    const elses = out.filter((o) => !o.edge.condition || o.edge.condition.type === 'else')
    if (elses.length > 1) {
      const second = elses[1] as IndexedEdge
      issues.push({ rule: 'multiple_else', path: `edges[${second.index}]`, nodeId: node.id, edgeIndex: second.index, edgeId: second.edge.id, message: `node "${node.id}" has more than one else (unconditional) edge; ${edgeLabel(second.edge, second.index)} can never be taken` })
    }
  }

  if (starts.length === 1) {
    const reached = new Set<string>([(starts[0] as WorkflowNode).id])
    const queue = [(starts[0] as WorkflowNode).id]
    while (queue.length) {
      const id = queue.shift() as string
      for (const { edge } of outgoing.get(id) ?? []) {
        if (indexOf.has(edge.to) && !reached.has(edge.to)) {
          reached.add(edge.to)
          queue.push(edge.to)
        }
      }
    }
    for (const node of nodes) {
      if (!reached.has(node.id)) {
        issues.push({ rule: 'unreachable', path: `nodes[${indexOf.get(node.id)}]`, nodeId: node.id, message: `node "${node.id}" cannot be reached from start node "${(starts[0] as WorkflowNode).id}"` })
      }
    }
  }
}
