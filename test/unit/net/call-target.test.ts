// One check of where a call may go (platform/net/call-target.ts): a workflow transfer node, the
// transfer_call tool and the dial path agree, so a target that saves is a target that dials.
import { expect, test } from 'bun:test'
import { checkTools } from '../../../src/features/agents/index.ts'
import { dialTarget } from '../../../src/features/calls/runtime/target.ts'
import type { NumberRoute } from '../../../src/features/numbers/index.ts'
import type { WorkflowNode } from '../../../src/features/workflows/workflow.model.ts'
import { nodeRuleErrors } from '../../../src/features/workflows/validate-shape.ts'
import { callTargetProblem } from '../../../src/platform/net/call-target.ts'

const route = { sip: { terminationUri: 'sip:pbx.example.com', username: null, password: null, transport: 'udp', register: false } } as NumberRoute
const transferNode = (target: string) => ({ id: 'desk', type: 'transfer', config: { target } }) as WorkflowNode
const toolIssues = (number: string) => checkTools(['transfer_call'], { transfer_call: { destinations: [{ number }] } }).issues
const dials = (to: string) => {
  try {
    dialTarget(route, to)
    return true
  } catch {
    return false
  }
}

test('"+12345678" (E.164 in shape, no real number) is refused by the workflow node and the tool alike, as the dial path refuses it', () => {
  expect(dials('+12345678')).toBe(false)
  expect(nodeRuleErrors(transferNode('+12345678'))).toEqual([{ field: 'target', message: expect.stringContaining('E.164') }])
  expect(toolIssues('+12345678')).toEqual([{ path: 'toolConfigs.transfer_call.destinations[0].number', message: expect.stringContaining('E.164') }])
})

test('a target the dial path takes is taken by the workflow node and the tool: a real number, a SIP URI', () => {
  for (const target of ['+14155550123', '+442071234567', 'sip:desk@pbx.example.com', 'sips:sales@10.0.0.5:5061;transport=tls']) {
    expect(dials(target)).toBe(true)
    expect(nodeRuleErrors(transferNode(target))).toEqual([])
    expect(toolIssues(target)).toEqual([])
  }
})

test('the workflow node and the tool give the same reason for the same target', () => {
  for (const target of ['555-1234', '+1234', 'sip:', 'sip:desk@pbx.example.com;maddr=203.0.113.9', 'sip:x@169.254.169.254']) {
    const reason = callTargetProblem(target)
    expect(reason).toBeDefined()
    expect(nodeRuleErrors(transferNode(target))).toEqual([{ field: 'target', message: reason! }])
    expect(toolIssues(target).map((i) => i.message)).toEqual([reason!])
  }
})

test('a SIP URI the appliance may not call is refused when saved: a maddr redirect, a cloud metadata address', () => {
  expect(callTargetProblem('sip:desk@pbx.example.com;maddr=203.0.113.9')).toContain('maddr')
  expect(callTargetProblem('sip:x@169.254.169.254')).toContain('may not call')
})
