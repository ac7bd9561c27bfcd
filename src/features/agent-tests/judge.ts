// Judges a finished test call against its case's expectations, from the call record: the
// transcript, metrics and outcome. Workflow nodes are known by the lines they speak (the record
// keeps what was said, not the engine's steps), so path and node expectations are judged on the
// nodes that say something. Pure.
import type { WorkflowGraph, WorkflowNode } from '../workflows/index.ts'
import { boundedTest, regexProblem } from '../../platform/regex/index.ts'
import type { Expectation } from './agent-tests.model.ts'

export interface JudgedCall {
  outcome: string | null
  endReason: string | null
  transcript: { role: 'agent' | 'user'; text: string; sources?: { documentName?: string; section?: string; passageId?: string; text?: string }[]; interrupted?: true }[]
  turns: { voiceToVoiceMs?: number | null }[]
  toolCalls: { name: string; arguments: unknown; result: string; at: number }[]
}

export interface Verdict {
  index: number
  type: Expectation['type']
  passed: boolean
  /** Why it failed, for a person to read. */
  reason?: string
}

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** What a node says, as a pattern over normalised text ({{variables}} match anything). */
function spokenPattern(node: WorkflowNode): RegExp | undefined {
  const c = node.config as { text?: string; prompt?: string }
  const text = c.text ?? c.prompt
  if (!text) return undefined
  const parts = text.split(/\{\{[^}]*\}\}/).map((p) => escape(norm(p)))
  return new RegExp(parts.join('.*'))
}

/** The nodes whose lines the agent said, in order (a node said twice in a row counts once). */
export function spokenNodes(graph: WorkflowGraph | undefined, agentLines: string[]): string[] {
  if (!graph) return []
  const patterns = graph.nodes.flatMap((n) => {
    const p = spokenPattern(n)
    return p ? [{ id: n.id, p }] : []
  })
  const out: string[] = []
  for (const line of agentLines) {
    const hit = patterns.find(({ p }) => p.test(norm(line)))
    if (hit && out[out.length - 1] !== hit.id) out.push(hit.id)
  }
  return out
}

const quote = (s: string, max = 120) => JSON.stringify(s.length > max ? `${s.slice(0, max)}...` : s)

function p95(values: number[]): number | undefined {
  if (!values.length) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]
}

const canonical = (v: unknown): string => JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x))

/** Why no call of the tool had the expected arguments (each given one equal, others free), or undefined. */
function toolVerdict(e: Extract<Expectation, { type: 'tool_called' }>, calls: JudgedCall['toolCalls']): string | undefined {
  const made = calls.filter((c) => c.name === e.tool)
  const names = calls.length ? calls.map((c) => c.name).join(', ') : 'none'
  if (!made.length) return `expected the agent to call ${e.tool}; the tools it called: ${names}`
  const want = Object.entries(e.arguments ?? {})
  const fits = (c: JudgedCall['toolCalls'][number]) => want.every(([k, v]) => c.arguments !== null && typeof c.arguments === 'object' && canonical((c.arguments as Record<string, unknown>)[k]) === canonical(v))
  if (made.some(fits)) return undefined
  return `${e.tool} was called, but never with ${quote(canonical(e.arguments), 200)}; its arguments were ${made.map((c) => quote(canonical(c.arguments), 200)).join(', ')}`
}

export function judge(expectations: readonly Expectation[], call: JudgedCall, graph?: WorkflowGraph): Verdict[] {
  const agentLines = call.transcript.filter((i) => i.role === 'agent').map((i) => i.text)
  const speaking = new Set(graph?.nodes.filter((n) => spokenPattern(n)).map((n) => n.id))
  const spoken = spokenNodes(graph, agentLines)
  return expectations.map((e, index) => {
    const fail = (reason: string): Verdict => ({ index, type: e.type, passed: false, reason })
    const pass: Verdict = { index, type: e.type, passed: true }
    switch (e.type) {
      case 'said': {
        const lines = e.turn === undefined ? agentLines : agentLines.slice(e.turn, e.turn + 1)
        const where = e.turn === undefined ? 'anywhere in the call' : `at turn ${e.turn}`
        const problem = e.pattern === undefined ? undefined : regexProblem(e.pattern, e.flags)
        if (problem) return fail(`the pattern ${problem}`)
        const ok = e.phrase !== undefined ? lines.some((l) => norm(l).includes(norm(e.phrase!))) : lines.some((l) => boundedTest(new RegExp(e.pattern!, e.flags), l))
        if (ok) return pass
        const heard = e.turn === undefined ? `the agent said ${agentLines.length ? agentLines.map((l) => quote(l, 60)).join(', ') : 'nothing'}` : `turn ${e.turn} was ${lines[0] !== undefined ? quote(lines[0]) : 'never reached'}`
        return fail(`expected the agent to say ${e.phrase !== undefined ? quote(e.phrase) : `text matching /${e.pattern}/${e.flags ?? ''}`} ${where}; ${heard}`)
      }
      case 'node_reached':
        if (!graph) return fail('the agent has no workflow')
        if (!speaking.has(e.nodeId)) return fail(`node "${e.nodeId}" ${graph.nodes.some((n) => n.id === e.nodeId) ? 'says nothing, so the call record cannot show it was reached' : 'is not in the workflow'}`)
        return spoken.includes(e.nodeId) ? pass : fail(`node "${e.nodeId}" was not reached; the agent's lines came from ${spoken.join(' > ') || 'no node'}`)
      case 'path': {
        if (!graph) return fail('the agent has no workflow')
        const want = e.nodes.filter((n) => speaking.has(n))
        return want.join('>') === spoken.join('>') ? pass : fail(`expected the path ${e.nodes.join(' > ')}; the agent's lines came from ${spoken.join(' > ') || 'no node'}`)
      }
      case 'tool_called':
      {
        const why = toolVerdict(e, call.toolCalls)
        return why === undefined ? pass : fail(why)
      }
      case 'transferred':
        if (call.outcome !== 'transferred') return fail(`expected a transfer${e.target ? ` to ${e.target}` : ''}; the call ended ${call.outcome ?? 'without an outcome'} (${call.endReason ?? 'no reason'})`)
        if (e.target && graph) {
          const node = graph.nodes.find((n) => n.type === 'transfer' && n.config.target === e.target)
          if (!node) return fail(`the workflow has no transfer node to ${e.target}`)
          if (speaking.has(node.id) && !spoken.includes(node.id)) return fail(`transferred, but not by node "${node.id}" (to ${e.target})`)
        }
        return pass
      case 'ended':
        if (!call.outcome) return fail('the call has not ended')
        return !e.outcome || e.outcome === call.outcome ? pass : fail(`expected the call to end ${e.outcome}; it ended ${call.outcome} (${call.endReason ?? 'no reason'})`)
      case 'knowledge_used': {
        const sources = call.transcript.flatMap((i) => (i.role === 'agent' ? (i.sources ?? []) : []))
        if (!sources.length) return fail('no line of the agent came from a knowledge passage')
        if (!e.passage) return pass
        const lines = call.transcript.filter((i) => i.role === 'agent' && i.sources?.length).map((i) => i.text)
        return lines.some((l) => norm(l).includes(norm(e.passage!))) ? pass : fail(`knowledge was used, but no line spoken from it holds ${quote(e.passage)}`)
      }
      case 'response_gap_p95': {
        const gap = p95(call.turns.flatMap((t) => (typeof t.voiceToVoiceMs === 'number' ? [t.voiceToVoiceMs] : [])))
        if (gap === undefined) return fail('no response gap was measured (no spoken caller turn got a spoken answer)')
        return gap <= e.maxMs ? pass : fail(`the response gap p95 was ${Math.round(gap)} ms, above ${e.maxMs} ms`)
      }
    }
  })
}
