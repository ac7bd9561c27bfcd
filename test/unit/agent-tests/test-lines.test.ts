// The test phone's one-time lines: only loopback may dial one, and only once.
import { expect, test } from 'bun:test'
import { isTestLine, TestLines } from '../../../src/features/calls/index.ts'

test('a test line routes one loopback call to its agent, then is gone; other sources and closed lines get nothing', () => {
  const lines = new TestLines()
  const a = lines.add({ workspaceId: 'ws_1', agentId: 'ag_1', draft: true })
  const b = lines.add({ workspaceId: 'ws_1', agentId: 'ag_2', draft: false })
  expect(a.user).toMatch(/^agent-test-[0-9a-f]{32}$/)
  expect(lines.take([a.user], '192.0.2.7')).toBeUndefined()
  const route = lines.take(['+14155550100', a.user], '127.0.0.1')!
  expect(route).toMatchObject({ workspaceId: 'ws_1', inboundAgentId: 'ag_1', testLine: { draft: true } })
  expect(isTestLine(route)).toBe(true)
  expect(lines.take([a.user], '127.0.0.1')).toBeUndefined()
  b.close()
  expect(lines.take([b.user], '127.0.0.1')).toBeUndefined()
})
