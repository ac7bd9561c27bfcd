// One filler, one semantics: what a prompt renders is what a workflow node renders.
import { expect, test } from 'bun:test'
import { fillTemplate as agentFill } from '../../src/features/agents/index.ts'
import { fillTemplate as sessionFill } from '../../src/realtime/voice/session/index.ts'
import { fillTemplate as workflowFill } from '../../src/features/workflows/engine/index.ts'

const vars = { name: 'Ada', 'order.id': 'A-1', contact: { city: 'Paris' } } as Record<string, unknown>

test('the agent, session and workflow fillers are the same function', () => {
  expect(sessionFill).toBe(workflowFill)
  expect(agentFill).toBe(workflowFill)
})

test('{{a.b}} reads a key with a dot first, then a path; an unknown name becomes empty', () => {
  expect(workflowFill('{{ name }} {{order.id}} {{contact.city}} [{{missing}}] [{{contact.zip}}]', vars)).toBe('Ada A-1 Paris [] []')
})

test('prototype keys are never reached', () => {
  expect(workflowFill('[{{constructor}}][{{__proto__}}][{{name.length}}][{{contact.constructor.name}}][{{toString}}]', vars)).toBe('[][][][][]')
})
