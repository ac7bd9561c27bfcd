// Test cases of an agent: written, listed, changed and removed within the agent's workspace.
import type { Db } from '../../platform/db/index.ts'
import { finishPage, pageLimit, type PageRequest } from '../../platform/db/index.ts'
import { conflict, notFound, validation } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import { findAgent } from '../agents/index.ts'
import { type AgentTestCase, type CaseInput, type CasePatch, MAX_CASES_PER_AGENT } from './agent-tests.model.ts'
import type { AgentTestTable } from './agent-tests.table.ts'
import * as repo from './agent-tests.repository.ts'
import { callerIssues, callerVoiceOf, expectationIssues } from './validate.ts'

export type CaseSource = AgentTestCase['source']

export function toCase(r: AgentTestTable): AgentTestCase {
  return {
    id: r.id,
    agentId: r.agent_id,
    name: r.name,
    caller: JSON.parse(r.caller),
    expectations: JSON.parse(r.expectations),
    source: r.source as CaseSource,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }
}

/** The agent's voice, or 404 when the agent is not in this workspace. */
async function agentVoice(db: Db, workspaceId: string, agentId: string) {
  const agent = await findAgent(db, workspaceId, agentId)
  if (!agent) throw notFound('agent')
  return agent.voice
}

export async function createCase(db: Db, workspaceId: string, agentId: string, input: CaseInput, source: CaseSource = 'api'): Promise<AgentTestCase> {
  const voice = await agentVoice(db, workspaceId, agentId)
  const issues = [...callerIssues(input.caller.turns, input.caller.voice, voice), ...expectationIssues(input.expectations)]
  if (issues.length) throw validation(issues)
  if ((await repo.countCases(db, workspaceId, agentId)) >= MAX_CASES_PER_AGENT) throw conflict(`an agent holds at most ${MAX_CASES_PER_AGENT} test cases`, { reason: 'too_many_cases' })
  const now = nowIso()
  const row: AgentTestTable = {
    id: newId('test'),
    workspace_id: workspaceId,
    agent_id: agentId,
    name: input.name.trim(),
    caller: JSON.stringify({ turns: input.caller.turns, voice: callerVoiceOf(input.caller.voice) }),
    expectations: JSON.stringify(input.expectations),
    source,
    created_at: now,
    updated_at: now,
  }
  await repo.insertCase(db, row)
  return toCase(row)
}

export async function getCase(db: Db, workspaceId: string, agentId: string, id: string): Promise<AgentTestCase> {
  await agentVoice(db, workspaceId, agentId)
  const row = await repo.findCase(db, workspaceId, agentId, id)
  if (!row) throw notFound('test case')
  return toCase(row)
}

export async function listCases(db: Db, workspaceId: string, agentId: string, page: PageRequest) {
  await agentVoice(db, workspaceId, agentId)
  const rows = await repo.listCases(db, workspaceId, agentId, page)
  const { items, nextCursor } = finishPage(rows, pageLimit(page), (r) => [r.created_at, r.id])
  return { tests: items.map(toCase), nextCursor }
}

export async function updateCase(db: Db, workspaceId: string, agentId: string, id: string, patch: CasePatch): Promise<AgentTestCase> {
  const voice = await agentVoice(db, workspaceId, agentId)
  const row = await repo.findCase(db, workspaceId, agentId, id)
  if (!row) throw notFound('test case')
  const issues = [
    ...(patch.caller ? callerIssues(patch.caller.turns, patch.caller.voice, voice) : []),
    ...(patch.expectations ? expectationIssues(patch.expectations) : []),
  ]
  if (issues.length) throw validation(issues)
  const set = {
    ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
    ...(patch.caller ? { caller: JSON.stringify({ turns: patch.caller.turns, voice: callerVoiceOf(patch.caller.voice) }) } : {}),
    ...(patch.expectations ? { expectations: JSON.stringify(patch.expectations) } : {}),
    updated_at: nowIso(),
  }
  await repo.updateCase(db, workspaceId, id, set)
  return toCase({ ...row, ...set })
}

export async function deleteCase(db: Db, workspaceId: string, agentId: string, id: string): Promise<void> {
  await agentVoice(db, workspaceId, agentId)
  if (!(await repo.deleteCase(db, workspaceId, agentId, id))) throw notFound('test case')
}
