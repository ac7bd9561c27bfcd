// The answer node: a caller's question answered from the knowledge bases with no LLM, its
// keyword edges first, its no_match edge when nothing scores enough; and the rules that check it.
import { describe, expect, test } from 'bun:test'
import { type KnowledgeSearch, WorkflowEngine, WorkflowRunError } from '../../../src/features/workflows/engine/index.ts'
import { validateWorkflow } from '../../../src/features/workflows/validate.ts'
import { edge, graph, kw, node } from './graphs.ts'

const noMatch = { type: 'no_match' } as const
const faq = graph(
  [
    node('start', 'start', { text: 'Ask me anything.' }),
    node('answer', 'answer', { minScore: 0.6, maxChars: 120 }),
    node('more', 'say', { text: 'Anything else?' }),
    node('sorry', 'end', { text: 'I do not know that one.' }),
    node('bye', 'end', { text: 'Goodbye.' }),
  ],
  [edge('start', 'answer'), edge('answer', 'bye', kw('goodbye')), edge('answer', 'sorry', noMatch), edge('answer', 'more'), edge('more', 'answer')],
)

/** A search over two passages; it records what it was asked. */
function knowledge(): KnowledgeSearch & { asked: { query: string; maxChars: number }[] } {
  const asked: { query: string; maxChars: number }[] = []
  return {
    asked,
    async search(query, { maxChars }) {
      asked.push({ query, maxChars })
      if (/saturday/i.test(query)) return [{ passageId: 7, documentName: 'hours.md', section: 'Saturday', score: 0.9, spoken: 'We close at {{caller_number}} 1 pm.' }]
      if (/parking/i.test(query)) return [{ passageId: 8, documentName: 'faq.csv', section: 'Parking?', score: 0.55, spoken: 'Two dollars an hour.' }]
      return []
    },
  }
}

const opts = { maxVisits: 10, today: () => '2026-11-26' }

describe('answer node', () => {
  test('waits for a question, says the best passage as written with its source, and follows its else edge', async () => {
    const k = knowledge()
    const engine = new WorkflowEngine(faq, { ...opts, knowledge: k })
    const started = await engine.start()
    expect(started.state.nodeId).toBe('answer')
    expect(k.asked).toEqual([])
    const r = await engine.receive(started.state, { kind: 'speech', text: 'when do you close on saturday' })
    expect(r.responses).toEqual([
      { nodeId: 'answer', output: 'We close at {{caller_number}} 1 pm.', sources: [{ passageId: 7, documentName: 'hours.md', section: 'Saturday', score: 0.9 }] },
      { nodeId: 'more', output: 'Anything else?' },
    ])
    expect(k.asked).toEqual([{ query: 'when do you close on saturday', maxChars: 120 }])
    expect(r.state.variables).toMatchObject({ answer: 'We close at {{caller_number}} 1 pm.', answer_source: 'hours.md > Saturday' })
    expect(r.understood).toBe(true)
    // "Anything else?" leads back: the next question is answered too
    const again = await engine.receive(r.state, { kind: 'speech', text: 'is it open on saturday' })
    expect(again.responses[0]!.output).toBe('We close at {{caller_number}} 1 pm.')
  })

  test('a passage under minScore, or none, takes the no_match edge; keyword edges come before any search', async () => {
    const k = knowledge()
    const engine = new WorkflowEngine(faq, { ...opts, knowledge: k })
    const started = await engine.start()
    const low = await engine.receive(started.state, { kind: 'speech', text: 'how much is parking' })
    expect(low.responses.map((x) => x.output)).toEqual(['I do not know that one.'])
    expect(low.final).toEqual({ action: 'end_call', nodeId: 'sorry' })
    const bye = await engine.receive(started.state, { kind: 'speech', text: 'ok goodbye then' })
    expect(bye.final).toEqual({ action: 'end_call', nodeId: 'bye' })
    expect(k.asked.map((a) => a.query)).toEqual(['how much is parking'])
  })

  test('an agent with no knowledge base has no answer (no_match); a failing search is a knowledge_failed error naming the node', async () => {
    const started = await new WorkflowEngine(faq, opts).start()
    const none = await new WorkflowEngine(faq, opts).receive(started.state, { kind: 'speech', text: 'saturday' })
    expect(none.final).toEqual({ action: 'end_call', nodeId: 'sorry' })
    const broken = new WorkflowEngine(faq, { ...opts, knowledge: { search: async () => Promise.reject(new Error('database gone')) } })
    const failed = await broken.receive(started.state, { kind: 'speech', text: 'saturday' }).catch((e) => e)
    expect(failed).toBeInstanceOf(WorkflowRunError)
    expect(failed).toMatchObject({ reason: 'knowledge_failed', nodeId: 'answer' })
  })

  test('keys pressed at an answer node are no question: it keeps waiting', async () => {
    const engine = new WorkflowEngine(faq, { ...opts, knowledge: knowledge() })
    const r = await engine.receive((await engine.start()).state, { kind: 'dtmf', digits: '5' })
    expect(r.responses).toEqual([])
    expect(r.state.nodeId).toBe('answer')
  })
})

describe('answer node rules', () => {
  const check = (edges: ReturnType<typeof edge>[]) =>
    validateWorkflow({ nodes: [node('start', 'start'), node('a', 'answer'), node('x', 'end'), node('y', 'end')], edges })

  test('an answer node needs exactly one no_match edge', () => {
    const none = check([edge('start', 'a'), edge('a', 'x')])
    expect(none.ok ? [] : none.issues.map((i) => [i.rule, i.path])).toEqual([['no_match_edge', 'nodes[1]'], ['unreachable', 'nodes[3]']])
    const two = check([edge('start', 'a'), edge('a', 'x', noMatch), edge('a', 'y', noMatch)])
    expect(two.ok ? [] : two.issues.map((i) => i.rule)).toEqual(['no_match_edge'])
    expect(check([edge('start', 'a'), edge('a', 'x', noMatch), edge('a', 'y')]).ok).toBe(true)
  })

  test('no_match leaves answer nodes only, and the config is checked', () => {
    const wrong = check([edge('start', 'a', noMatch), edge('a', 'x', noMatch), edge('a', 'y')])
    expect(wrong.ok ? [] : wrong.issues.map((i) => [i.rule, i.path])).toEqual([['no_match_edge', 'edges[0].condition']])
    const bad = validateWorkflow({ nodes: [node('start', 'start'), node('a', 'answer', { minScore: 2, maxChars: 5 }), node('x', 'end')], edges: [edge('start', 'a'), edge('a', 'x', noMatch)] })
    expect(bad.ok ? [] : bad.issues.map((i) => i.path).sort()).toEqual(['nodes[1].config.maxChars', 'nodes[1].config.minScore'])
  })
})
