import type { Db } from '../../platform/db/index.ts'
import { notFound } from '../../platform/errors.ts'
import type { Agent, Endpointing } from './agents.model.ts'
import * as repo from './agents.repository.ts'
import { toAgent } from './agents.service.ts'

/** Fields of the agent a call does not carry: drafts never reach calls, the published prompt is `prompt`. */
type NotCarried = 'id' | 'promptDraft' | 'promptPublished' | 'endpointing' | 'maxDurationSec' | 'knowledgeBaseIds' | 'knowledgeAutoSearch' | 'vocabulary' | 'publishedAt' | 'createdAt' | 'updatedAt'

/**
 * What a call runs with: the agent as it was when the call started. Later edits to the agent
 * change the next call, never this one. Deeply frozen; safe to store as JSON on the call.
 */
export type AgentSnapshot = Omit<Agent, NotCarried> & {
  agentId: string
  /** The published prompt. */
  prompt: string
  /** How much silence ends the caller's turn; absent in snapshots stored before it existed. */
  endpointing?: Endpointing
  /** The agent's own call length limit in seconds; null or absent (older snapshots): CALL_MAX_DURATION_MS. */
  maxDurationSec?: number | null
  /** Absent in snapshots stored before knowledge bases existed: none. */
  knowledgeBaseIds?: string[]
  knowledgeAutoSearch?: boolean
  /** Absent in snapshots stored before the vocabulary existed: none. */
  vocabulary?: string[]
  takenAt: string
}

/** `draft`: a test call that runs the draft prompt (falling back to the published one when the draft is empty). */
export async function snapshotAgent(db: Db, agentId: string, opts: { workspaceId?: string; now?: Date; draft?: boolean } = {}): Promise<AgentSnapshot> {
  const row = opts.workspaceId ? await repo.findAgent(db, opts.workspaceId, agentId) : await repo.findAgentAnyWorkspace(db, agentId)
  if (!row) throw notFound('agent')
  const { id, promptDraft, promptPublished, publishedAt: _published, createdAt: _created, updatedAt: _updated, ...carried } = toAgent(row)
  const snap: AgentSnapshot = { agentId: id, ...carried, prompt: opts.draft && promptDraft.trim() ? promptDraft : promptPublished, takenAt: (opts.now ?? new Date()).toISOString() }
  return deepFreeze(snap)
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
