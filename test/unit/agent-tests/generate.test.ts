// Starting cases from a workflow: one per path to an end node, each checked by the engine.
import { describe, expect, test } from 'bun:test'
import { generateCases } from '../../../src/features/agent-tests/generate.ts'
import { AGENT_TEMPLATES } from '../../../src/features/agents/templates.ts'
import { testRun, type WorkflowGraph } from '../../../src/features/workflows/index.ts'

const graphOf = (name: string) => AGENT_TEMPLATES[name]!.workflow as unknown as WorkflowGraph

describe('generated cases', () => {
  test('the receptionist gets one case per path to its end, keys before words, no turn the engine does not need', async () => {
    const cases = await generateCases(graphOf('receptionist'))
    expect(cases.map((c) => (c.expectations[0] as { nodes: string[] }).nodes.join('>'))).toEqual([
      'start>hours>bye',
      'start>message>noted>bye',
      'start>faq>unknown>message>noted>bye',
    ])
    expect(cases[0]!.caller.turns).toEqual([{ type: 'keys', digits: '1' }])
    expect(cases[0]!.expectations).toEqual([
      { type: 'path', nodes: ['start', 'hours', 'bye'] },
      { type: 'said', phrase: 'Thank you for calling. Goodbye.' },
      { type: 'ended', outcome: 'completed' },
    ])
    // the question that leads to the answer node is answered there: two lines, not three
    expect(cases[2]!.caller.turns).toHaveLength(2)
  })

  test("every template's cases drive the engine along their path when fed as text", async () => {
    for (const name of ['receptionist', 'booking', 'sales', 'followup']) {
      const graph = graphOf(name)
      for (const c of await generateCases(graph)) {
        const inputs = c.caller.turns.map((t) => ({ role: 'user' as const, content: t.type === 'keys' ? `dtmf:${t.digits}` : (t as { text: string }).text }))
        const run = await testRun(graph, inputs, { maxVisits: 20, today: () => '2026-01-01' })
        expect(run.path, `${name}: ${c.name}`).toEqual((c.expectations[0] as { nodes: string[] }).nodes)
        expect(run.finalAction).toBe('end_call')
      }
    }
  })

  test('a transfer end expects the transfer and its target; a path that needs an LLM or a regex is left out', async () => {
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: { text: 'Hi. Press 1 for sales.' } },
        { id: 'sales', type: 'transfer', config: { target: 'sip:sales@pbx.example' } },
        { id: 'smart', type: 'end', config: { text: 'Bye.' } },
        { id: 'coded', type: 'end', config: { text: 'Bye now.' } },
      ],
      edges: [
        { from: 'start', to: 'sales', condition: { type: 'dtmf', digits: '1' } },
        { from: 'start', to: 'smart', condition: { type: 'intent', intent: 'wants to leave' } },
        { from: 'start', to: 'coded', condition: { type: 'regex', pattern: '^[0-9]{6}$' } },
      ],
    } as unknown as WorkflowGraph
    const cases = await generateCases(graph)
    expect(cases).toHaveLength(1)
    expect(cases[0]!.expectations).toEqual([{ type: 'path', nodes: ['start', 'sales'] }, { type: 'transferred', target: 'sip:sales@pbx.example' }])
  })
})
