// Starting cases from a workflow: one per path from start to each end or transfer node. Each
// path's caller presses the keys (or says a keyword) of every edge it takes where the workflow
// listens; a candidate is kept only when the workflow engine, fed its script as text, takes
// exactly that path, so no generated case expects what the workflow cannot do. Pure.
import { testRun, type WorkflowEdge, type WorkflowGraph, type WorkflowNode } from '../workflows/index.ts'
import type { CaseInput, Expectation, Turn } from './agent-tests.model.ts'

export const MAX_GENERATED = 20
/** Said where the caller must match none of a node's keyword edges (an else edge, a free-text answer). */
const FILLERS = ['I am only testing this line', 'Just checking in', 'Testing one two three']
const INPUT_TYPES = new Set(['keywords', 'regex', 'dtmf', 'intent'])
const LISTENERS = new Set(['collect', 'answer', 'conversation'])

type Step = { edge: WorkflowEdge; turn?: Turn }

export async function generateCases(graph: WorkflowGraph): Promise<CaseInput[]> {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]))
  const outgoing = new Map<string, WorkflowEdge[]>()
  for (const e of graph.edges) outgoing.set(e.from, [...(outgoing.get(e.from) ?? []), e])
  const start = graph.nodes.find((n) => n.type === 'start')
  if (!start) return []
  const listens = (n: WorkflowNode) => LISTENERS.has(n.type) || ((n.type === 'start' || n.type === 'say') && (outgoing.get(n.id) ?? []).some((e) => e.condition && INPUT_TYPES.has(e.condition.type)))

  const paths: { nodes: string[]; steps: Step[] }[] = []
  const walk = (node: WorkflowNode, nodes: string[], steps: Step[]) => {
    if (paths.length >= MAX_GENERATED * 4) return
    if (node.type === 'end' || node.type === 'transfer') return void paths.push({ nodes, steps })
    // one edge per target: the first that a caller can drive (keys before words)
    const byTarget = new Map<string, Step>()
    for (const edge of outgoing.get(node.id) ?? []) {
      if (nodes.includes(edge.to)) continue
      const step = stepFor(node, edge, listens(node), outgoing.get(node.id) ?? [])
      if (!step) continue
      const had = byTarget.get(edge.to)
      if (!had || (had.turn?.type !== 'keys' && step.turn?.type === 'keys')) byTarget.set(edge.to, step)
    }
    for (const [to, step] of byTarget) {
      const next = byId.get(to)
      if (next) walk(next, [...nodes, to], [...steps, step])
    }
  }
  walk(start, [start.id], [])

  const cases: CaseInput[] = []
  for (const p of paths) {
    if (cases.length >= MAX_GENERATED) break
    let turns = p.steps.flatMap((s) => (s.turn ? [s.turn] : []))
    if (!(await engineTakes(graph, turns, p.nodes))) continue
    // a turn the engine does not need (an answer node takes the question that led to it) is dropped
    for (let i = turns.length - 1; i >= 0; i--) {
      const fewer = turns.filter((_, j) => j !== i)
      if (fewer.length && (await engineTakes(graph, fewer, p.nodes))) turns = fewer
    }
    const last = byId.get(p.nodes[p.nodes.length - 1]!)!
    cases.push({ name: nameOf(p.nodes, turns), caller: { turns: turns.length ? turns : [{ type: 'silence', ms: 1000 }, { type: 'keys', digits: '#' }] }, expectations: expectationsOf(last, p.nodes) })
  }
  return cases.filter((c) => c.caller.turns.some((t) => t.type !== 'silence'))
}

function stepFor(node: WorkflowNode, edge: WorkflowEdge, listening: boolean, siblings: WorkflowEdge[]): Step | undefined {
  const c = edge.condition
  if (!listening) return !c || c.type === 'else' ? { edge } : undefined
  if (c?.type === 'dtmf') return { edge, turn: { type: 'keys', digits: c.digits } }
  if (c?.type === 'keywords') return { edge, turn: { type: 'say', text: c.keywords[0]! } }
  if (c && c.type !== 'else' && c.type !== 'no_match') return undefined
  if (node.type === 'collect') {
    const k = node.config
    if (k.kind === 'digits') return { edge, turn: { type: 'keys', digits: '1'.repeat(k.minDigits ?? 4) } }
    if (k.kind === 'yes_no') return { edge, turn: { type: 'say', text: 'yes' } }
    if (k.kind !== 'text') return undefined
  }
  const words = siblings.flatMap((e) => (e.condition?.type === 'keywords' ? e.condition.keywords.map((w) => w.toLowerCase()) : []))
  const filler = FILLERS.find((f) => !words.some((w) => f.toLowerCase().includes(w)))
  return filler ? { edge, turn: { type: 'say', text: filler } } : undefined
}

/** Whether the engine, fed the turns as text, visits exactly `nodes` and finishes there. */
async function engineTakes(graph: WorkflowGraph, turns: Turn[], nodes: string[]): Promise<boolean> {
  const inputs = turns.map((t) => ({ role: 'user' as const, content: t.type === 'keys' ? `dtmf:${t.digits}` : t.type === 'say' || t.type === 'interrupt' ? t.text : '' })).filter((i) => i.content)
  try {
    const run = await testRun(graph, inputs, { maxVisits: graph.settings?.maxVisits ?? 20, today: () => '2026-01-01' })
    return run.finalAction !== 'awaiting_input' && run.path.join('>') === nodes.join('>')
  } catch {
    // a node that needs an LLM or a tool: not a starting case the generator can vouch for
    return false
  }
}

function expectationsOf(last: WorkflowNode, nodes: string[]): Expectation[] {
  const out: Expectation[] = [{ type: 'path', nodes }]
  const text = last.type === 'end' || last.type === 'transfer' ? last.config.text : undefined
  if (text && !text.includes('{{')) out.push({ type: 'said', phrase: text })
  out.push(last.type === 'transfer' ? { type: 'transferred', target: last.config.target } : { type: 'ended', outcome: 'completed' })
  return out
}

function nameOf(nodes: string[], turns: Turn[]): string {
  const how = turns.map((t) => (t.type === 'keys' ? `keys ${t.digits}` : t.type === 'say' ? `"${t.text}"` : t.type)).join(', ')
  return `${nodes.join(' > ')}${how ? ` (${how})` : ''}`.slice(0, 200)
}
