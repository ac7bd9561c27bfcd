// The inbound and outbound agent of a number, as POST and PATCH /api/phone-numbers take them.
import { findAgentRow } from '../agents/index.ts'
import type { Db } from '../../platform/db/index.ts'
import type { FieldIssue } from '../../platform/errors.ts'
import type { PhoneNumberTable } from './numbers.table.ts'
import { nextStatus } from './status.ts'

async function checkAgent(db: Db, workspaceId: string, id: string, want: 'inbound' | 'outbound', path: string, issues: FieldIssue[]) {
  const agent = await findAgentRow(db, workspaceId, id)
  if (!agent) issues.push({ path, message: `no agent ${id} in this workspace` })
  else if (agent.agent_type !== want) issues.push({ path, message: `agent ${id} is an ${agent.agent_type} agent; assign an ${want} agent` })
}

export interface AgentSlots {
  inboundAgentId?: string | null
  outboundAgentId?: string | null
}

/** The agents a body assigns: each of this workspace and of its slot's agentType, on create as on PATCH. */
export async function checkAgents(db: Db, workspaceId: string, body: AgentSlots, issues: FieldIssue[]) {
  if (body.inboundAgentId) await checkAgent(db, workspaceId, body.inboundAgentId, 'inbound', 'inboundAgentId', issues)
  if (body.outboundAgentId) await checkAgent(db, workspaceId, body.outboundAgentId, 'outbound', 'outboundAgentId', issues)
}

/** A new number with agents is active at once (status.ts). */
export function assignAgents(row: PhoneNumberTable, agents: AgentSlots): void {
  row.inbound_agent_id = agents.inboundAgentId ?? null
  row.outbound_agent_id = agents.outboundAgentId ?? null
  row.status = nextStatus(row.status, { hasAgent: row.inbound_agent_id !== null || row.outbound_agent_id !== null })
}
