// What features ask of each other, wired in one place so that neither side imports the other:
// agents attach and look up workflows, numbers show whether their agent can converse, workflows
// check that their agent exists and which tools it enabled.
import { agentReadiness, type AgentWorkflowHooks, findAgent, findAgentRow, type UnreachableProvider, unlinkKnowledgeBase } from './agents/index.ts'
import type { Config } from '../platform/config/index.ts'
import type { Db } from '../platform/db/index.ts'
import { servingFromConfig } from './providers/index.ts'
import { findWorkflowGraph, replaceWorkflow, type WorkflowService } from './workflows/index.ts'
import { searchKnowledge } from './knowledge/index.ts'

/** For the agents feature: whether an agent has a workflow, and attaching a template's. */
export function agentWorkflowHooks(db: Db, config: Config): AgentWorkflowHooks {
  return {
    hasWorkflow: async (workspaceId, agentId) => (await findWorkflowGraph(db, workspaceId, agentId)) !== undefined,
    attachWorkflow: async (workspaceId, agentId, graph) => {
      const agentExists = async (ws: string, id: string) => (await findAgentRow(db, ws, id)) !== undefined
      await replaceWorkflow({ db, agentExists, maxVisits: config.WORKFLOW_MAX_VISITS }, workspaceId, agentId, graph as Parameters<typeof replaceWorkflow>[3])
    },
  }
}

/** For the numbers feature: whether the agent a number routes to can hold a conversation. */
export function numberAgentReadiness(db: Db, config: Config, unreachable?: () => UnreachableProvider[]) {
  return async (workspaceId: string, agentId: string) => {
    const agent = await findAgent(db, workspaceId, agentId)
    if (!agent) return undefined
    const hasWorkflow = (await findWorkflowGraph(db, workspaceId, agentId)) !== undefined
    return agentReadiness({ llmModel: agent.llmModel, voice: agent.voice, hasWorkflow }, servingFromConfig(config), unreachable?.())
  }
}

/** For the workflows feature: the agent a workflow belongs to. */
export function workflowAgentHooks(db: Db): Pick<WorkflowService, 'agentExists' | 'enabledTools' | 'knowledge'> {
  return {
    agentExists: async (workspaceId, agentId) => (await findAgentRow(db, workspaceId, agentId)) !== undefined,
    enabledTools: async (workspaceId, agentId) => (await findAgent(db, workspaceId, agentId))?.enabledTools ?? [],
    knowledge: async (workspaceId, agentId) => {
      const ids = (await findAgent(db, workspaceId, agentId))?.knowledgeBaseIds ?? []
      return ids.length ? { search: (query, { maxChars }) => searchKnowledge(db, workspaceId, ids, query, 1, maxChars) } : undefined
    },
  }
}

/** For the knowledge feature: a deleted base leaves the agents that linked it. */
export const knowledgeAgentHooks = (db: Db) => ({ unlinkBase: (workspaceId: string, baseId: string) => unlinkKnowledgeBase(db, workspaceId, baseId) })

/** For the agent-tests feature: the workflow its cases are generated from. */
export const agentTestHooks = (db: Db) => ({ workflowOf: (workspaceId: string, agentId: string) => findWorkflowGraph(db, workspaceId, agentId) })
