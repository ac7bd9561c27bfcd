import type { Db } from '../db/index.ts'
import { notFound } from '../errors.ts'
import type { Endpointing, Voice, Welcome } from './agents.model.ts'
import * as repo from './agents.repository.ts'
import type { AgentRole, AgentType } from './agents.table.ts'
import { toAgent } from './agents.service.ts'

/**
 * What a call runs with: the agent as it was when the call started. Later edits to the agent
 * change the next call, never this one. Deeply frozen; safe to store as JSON on the call.
 */
export interface AgentSnapshot {
  agentId: string
  workspaceId: string
  version: number
  name: string
  /** The published prompt; drafts never reach calls. */
  prompt: string
  welcome: Welcome
  voice: Voice
  llmModel: string
  language: string
  enabledTools: string[]
  toolConfigs: Record<string, unknown>
  /** '' when the agent has no webhook. */
  webhookUrl: string
  agentType: AgentType
  role: AgentRole
  /** How much silence ends the caller's turn; absent in snapshots stored before it existed. */
  endpointing?: Endpointing
  variables: string[]
  takenAt: string
}

export async function snapshotAgent(db: Db, agentId: string, opts: { workspaceId?: string; now?: Date } = {}): Promise<AgentSnapshot> {
  const row = opts.workspaceId ? await repo.findAgent(db, opts.workspaceId, agentId) : await repo.findAgentAnyWorkspace(db, agentId)
  if (!row) throw notFound('agent')
  const a = toAgent(row)
  const snap: AgentSnapshot = {
    agentId: a.id,
    workspaceId: a.workspaceId,
    version: a.version,
    name: a.name,
    prompt: a.promptPublished,
    welcome: a.welcome,
    voice: a.voice,
    llmModel: a.llmModel,
    language: a.language,
    enabledTools: a.enabledTools,
    toolConfigs: a.toolConfigs,
    webhookUrl: a.webhookUrl,
    agentType: a.agentType,
    role: a.role,
    endpointing: a.endpointing,
    variables: a.variables,
    takenAt: (opts.now ?? new Date()).toISOString(),
  }
  return deepFreeze(snap)
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
