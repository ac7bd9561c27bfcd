// Judging a finished test call from its record: each expectation passes or says why not.
import { describe, expect, test } from 'bun:test'
import { judge, spokenNodes, type JudgedCall } from '../../../src/features/agent-tests/judge.ts'
import type { WorkflowGraph } from '../../../src/features/workflows/index.ts'

const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Hello, you called {{called_number}}. Press 1 for hours.' } },
    { id: 'check', type: 'condition', config: {} },
    { id: 'hours', type: 'say', config: { text: 'We are open from nine to five.' } },
    { id: 'desk', type: 'transfer', config: { target: 'sip:desk@pbx.example', text: 'Putting you through.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [],
} as unknown as WorkflowGraph

const call = (over: Partial<JudgedCall> = {}): JudgedCall => ({
  outcome: 'completed',
  endReason: 'agent_hangup',
  transcript: [
    { role: 'agent', text: 'Hello, you called +14155550100. Press 1 for hours.' },
    { role: 'user', text: '[DTMF] 1' },
    { role: 'agent', text: 'We are open from nine to five.' },
    { role: 'agent', text: 'Goodbye.' },
  ],
  turns: [{ voiceToVoiceMs: 400 }, { voiceToVoiceMs: 900 }, { voiceToVoiceMs: null }],
  toolCalls: [],
  ...over,
})

describe('judge', () => {
  test("the nodes are known by the lines they speak, {{variables}} matching anything", () => {
    expect(spokenNodes(GRAPH, call().transcript.filter((i) => i.role === 'agent').map((i) => i.text))).toEqual(['start', 'hours', 'bye'])
  })

  test('tool_called: the tool by name, each given argument equal (key order free), the others free; a miss names what was called', () => {
    const made = call({ toolCalls: [{ name: 'send_dtmf', arguments: { digits: '42', extra: { b: 1, a: 2 } }, result: '{"sent":"42"}', at: 3.2 }] })
    const [byName, byArgs, nested, wrongArgs, other] = judge([
      { type: 'tool_called', tool: 'send_dtmf' },
      { type: 'tool_called', tool: 'send_dtmf', arguments: { digits: '42' } },
      { type: 'tool_called', tool: 'send_dtmf', arguments: { extra: { a: 2, b: 1 } } },
      { type: 'tool_called', tool: 'send_dtmf', arguments: { digits: '7' } },
      { type: 'tool_called', tool: 'opt_out' },
    ], made)
    expect([byName!.passed, byArgs!.passed, nested!.passed, wrongArgs!.passed, other!.passed]).toEqual([true, true, true, false, false])
    expect(wrongArgs!.reason).toBe('send_dtmf was called, but never with "{\\"digits\\":\\"7\\"}"; its arguments were "{\\"digits\\":\\"42\\",\\"extra\\":{\\"a\\":2,\\"b\\":1}}"')
    expect(other!.reason).toBe('expected the agent to call opt_out; the tools it called: send_dtmf')
    expect(judge([{ type: 'tool_called', tool: 'opt_out' }], call())[0]!.reason).toBe('expected the agent to call opt_out; the tools it called: none')
  })

  test('said: a slow pattern saved before it was refused fails at once, and a long line is matched on its start only', () => {
    const long = call({ transcript: [{ role: 'agent', text: `${'a'.repeat(5000)}!` }] })
    const [nested, tail] = judge([{ type: 'said', pattern: '^(a+)+$' }, { type: 'said', pattern: 'a!' }], long)
    expect(nested!.passed).toBe(false)
    expect(nested!.reason).toContain('repeats a group that itself repeats')
    expect(tail!.passed).toBe(false)
  })

  test('said: a phrase anywhere or at a turn, a pattern; a miss quotes what the agent said', () => {
    const [any, atTurn, pattern, wrongTurn] = judge([
      { type: 'said', phrase: 'OPEN from nine' },
      { type: 'said', phrase: 'goodbye', turn: 2 },
      { type: 'said', pattern: 'nine\\s+to\\s+FIVE', flags: 'i' },
      { type: 'said', phrase: 'goodbye', turn: 1 },
    ], call(), GRAPH)
    expect([any!.passed, atTurn!.passed, pattern!.passed]).toEqual([true, true, true])
    expect(wrongTurn).toEqual({ index: 3, type: 'said', passed: false, reason: 'expected the agent to say "goodbye" at turn 1; turn 1 was "We are open from nine to five."' })
  })

  test('path and node_reached on the speaking nodes; a silent node says it cannot be seen', () => {
    const v = judge([
      { type: 'path', nodes: ['start', 'check', 'hours', 'bye'] },
      { type: 'path', nodes: ['start', 'desk'] },
      { type: 'node_reached', nodeId: 'hours' },
      { type: 'node_reached', nodeId: 'check' },
      { type: 'node_reached', nodeId: 'nowhere' },
    ], call(), GRAPH)
    expect(v.map((x) => x.passed)).toEqual([true, false, true, false, false])
    expect(v[1]!.reason).toBe("expected the path start > desk; the agent's lines came from start > hours > bye")
    expect(v[3]!.reason).toBe('node "check" says nothing, so the call record cannot show it was reached')
    expect(v[4]!.reason).toBe('node "nowhere" is not in the workflow')
  })

  test('ended and transferred compare the outcome, naming how the call really ended', () => {
    const [ended, other, transferred] = judge([{ type: 'ended', outcome: 'completed' }, { type: 'ended', outcome: 'transferred' }, { type: 'transferred', target: 'sip:desk@pbx.example' }], call(), GRAPH)
    expect(ended!.passed).toBe(true)
    expect(other!.reason).toBe('expected the call to end transferred; it ended completed (agent_hangup)')
    expect(transferred!.reason).toBe('expected a transfer to sip:desk@pbx.example; the call ended completed (agent_hangup)')
    const moved = call({ outcome: 'transferred', endReason: 'transferred', transcript: [{ role: 'agent', text: 'Putting you through.' }] })
    expect(judge([{ type: 'transferred', target: 'sip:desk@pbx.example' }], moved, GRAPH)[0]!.passed).toBe(true)
    expect(judge([{ type: 'transferred', target: 'sip:other@pbx.example' }], moved, GRAPH)[0]!.reason).toBe('the workflow has no transfer node to sip:other@pbx.example')
  })

  test('knowledge_used needs a line spoken from a passage (holding the text, when given)', () => {
    const cited = call({ transcript: [{ role: 'agent', text: 'Parking is free after six.', sources: [{ documentName: 'faq.md' }] }] })
    expect(judge([{ type: 'knowledge_used' }, { type: 'knowledge_used', passage: 'free after six' }], cited).map((v) => v.passed)).toEqual([true, true])
    expect(judge([{ type: 'knowledge_used', passage: 'opening hours' }], cited)[0]!.reason).toBe('knowledge was used, but no line spoken from it holds "opening hours"')
    expect(judge([{ type: 'knowledge_used' }], call())[0]!.reason).toBe('no line of the agent came from a knowledge passage')
  })

  test('response_gap_p95 over the measured turns; none measured is a failure that says so', () => {
    expect(judge([{ type: 'response_gap_p95', maxMs: 900 }], call())[0]!.passed).toBe(true)
    expect(judge([{ type: 'response_gap_p95', maxMs: 800 }], call())[0]!.reason).toBe('the response gap p95 was 900 ms, above 800 ms')
    expect(judge([{ type: 'response_gap_p95', maxMs: 800 }], call({ turns: [] }))[0]!.reason).toContain('no response gap was measured')
  })

  test('without a workflow, path expectations fail saying so', () => {
    expect(judge([{ type: 'path', nodes: ['start'] }], call())[0]!.reason).toBe('the agent has no workflow')
  })
})
