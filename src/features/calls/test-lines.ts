// One-time SIP lines for agent test calls (issue 48): the built-in test phone dials the user part
// a line names, over loopback, and the call reaches the line's agent as a `test` call. A line is
// an unguessable token that only a loopback source may dial, and it works for one call.
import { randomBytes } from 'node:crypto'
import type { NumberRoute } from '../numbers/index.ts'

export interface TestLine {
  workspaceId: string
  agentId: string
  /** Run the agent's draft prompt instead of its published one. */
  draft: boolean
}

/** The route a test line's INVITE gets: no number, a marker the call runtime reads. */
export type TestLineRoute = NumberRoute & { testLine: TestLine }

const PREFIX = 'agent-test-'
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/

export class TestLines {
  private readonly open = new Map<string, TestLine>()

  /** A new line: the SIP user to dial, and its release (also when the call never came). */
  add(line: TestLine): { user: string; close(): void } {
    const user = PREFIX + randomBytes(16).toString('hex')
    this.open.set(user, line)
    return { user, close: () => void this.open.delete(user) }
  }

  /** The line a user part names, when the INVITE came over loopback; each line is taken once. */
  take(users: string[], sourceAddress: string): TestLineRoute | undefined {
    if (!LOOPBACK.test(sourceAddress)) return undefined
    for (const user of users) {
      const line = this.open.get(user)
      if (!line) continue
      this.open.delete(user)
      return {
        id: '',
        workspaceId: line.workspaceId,
        e164: user,
        provider: 'sip',
        status: 'active',
        inboundAgentId: line.agentId,
        outboundAgentId: null,
        mediaEncryption: 'none',
        sip: null,
        testLine: line,
      } as TestLineRoute
    }
    return undefined
  }
}

export const isTestLine = (route: NumberRoute): route is TestLineRoute => 'testLine' in route
