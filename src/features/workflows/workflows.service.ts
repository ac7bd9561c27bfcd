import type { Db } from '../../platform/db/index.ts'
import { AppError, notFound } from '../../platform/errors.ts'
import { nowIso } from '../../platform/ids.ts'
import type { Llm } from '../../realtime/voice/llm/index.ts'
import { type KnowledgeSearch, testRun, type TestRunResult, type ToolRunner, WorkflowRunError } from './engine/index.ts'
import { validateWorkflow, type WorkflowIssue } from './validate.ts'
import type { Workflow, WorkflowGraph, WorkflowInput } from './workflow.model.ts'
import type { TestRunBody } from './workflows.model.ts'
import * as repo from './workflows.repository.ts'
import type { WorkflowTable } from './workflows.table.ts'

/** Whether the agent exists in the workspace; supplied by the agents module. */
export type AgentExists = (workspaceId: string, agentId: string) => Promise<boolean>

export interface WorkflowService {
  db: Db
  agentExists: AgentExists
  /** Absent when no LLM is configured: LLM nodes and intent edges then fail with a clear error. */
  llm?: Llm
  /** Runs the agent's enabled tools; absent when tools cannot run here. */
  tools?: (workspaceId: string, agentId: string) => ToolRunner | undefined
  /** The agent's enabled tool names; when given, tool nodes are checked against them. */
  enabledTools?: (workspaceId: string, agentId: string) => Promise<readonly string[]>
  /** The agent's knowledge bases, searched by answer nodes in a test run; undefined when it links none. */
  knowledge?: (workspaceId: string, agentId: string) => Promise<KnowledgeSearch | undefined>
  maxVisits: number
  today?: () => string
}

function toWorkflow(row: WorkflowTable): Workflow {
  const graph = JSON.parse(row.graph) as WorkflowGraph
  return { agentId: row.agent_id, nodes: graph.nodes, edges: graph.edges, settings: graph.settings ?? {}, createdAt: row.created_at, updatedAt: row.updated_at }
}

async function requireAgent(s: WorkflowService, workspaceId: string, agentId: string) {
  if (!(await s.agentExists(workspaceId, agentId))) throw notFound('agent')
}

/** 422 validation_failed listing every issue; `fields` keeps the API's usual {path, message}. */
function invalidWorkflow(issues: WorkflowIssue[], prefix = ''): AppError {
  const fields = issues.map((i) => ({ ...i, path: prefix + i.path }))
  const message = `workflow is not valid: ${issues.slice(0, 10).map((i) => i.message).join('; ')}`
  return new AppError(422, 'validation_failed', message, { fields })
}

async function validGraph(s: WorkflowService, workspaceId: string, agentId: string, input: WorkflowInput, prefix = ''): Promise<WorkflowGraph> {
  const enabledTools = s.enabledTools ? await s.enabledTools(workspaceId, agentId) : undefined
  const r = validateWorkflow(input, { enabledTools })
  if (!r.ok) throw invalidWorkflow(r.issues, prefix)
  return r.graph
}

export async function getWorkflow(s: WorkflowService, workspaceId: string, agentId: string): Promise<Workflow> {
  await requireAgent(s, workspaceId, agentId)
  const row = await repo.findWorkflow(s.db, workspaceId, agentId)
  if (!row) throw new AppError(404, 'not_found', 'agent has no workflow')
  return toWorkflow(row)
}

/** Validates and stores the whole graph in place of the agent's current one. */
export async function replaceWorkflow(s: WorkflowService, workspaceId: string, agentId: string, input: WorkflowInput): Promise<Workflow> {
  await requireAgent(s, workspaceId, agentId)
  const graph = await validGraph(s, workspaceId, agentId, input)
  const at = nowIso()
  const row = await repo.upsertWorkflow(s.db, { agent_id: agentId, workspace_id: workspaceId, graph: JSON.stringify(graph), created_at: at, updated_at: at })
  if (!row) throw notFound('agent')
  return toWorkflow(row)
}

/** Detaches the workflow from the agent; the agent itself stays. */
export async function deleteWorkflow(s: WorkflowService, workspaceId: string, agentId: string): Promise<void> {
  await requireAgent(s, workspaceId, agentId)
  if (!(await repo.deleteWorkflow(s.db, workspaceId, agentId))) throw new AppError(404, 'not_found', 'agent has no workflow')
}

function runError(err: WorkflowRunError): AppError {
  const details = { reason: err.reason, nodeId: err.nodeId, ...(err.edgeId ? { edgeId: err.edgeId } : {}) }
  // The LLM being down is not the caller's fault; everything else is the workflow asking for what is not there.
  if (err.reason === 'llm_failed') return new AppError(503, 'not_ready', err.message, details)
  return new AppError(422, 'validation_failed', err.message, details)
}

/** Runs the saved workflow (or a draft from the body) over a transcript. Changes nothing. */
export async function testRunWorkflow(s: WorkflowService, workspaceId: string, agentId: string, body: TestRunBody): Promise<TestRunResult> {
  await requireAgent(s, workspaceId, agentId)
  let graph: WorkflowGraph
  if (body.workflow) graph = await validGraph(s, workspaceId, agentId, body.workflow, 'workflow.')
  else {
    const row = await repo.findWorkflow(s.db, workspaceId, agentId)
    if (!row) throw new AppError(404, 'not_found', 'agent has no workflow; PUT one first or send a draft as `workflow`')
    graph = JSON.parse(row.graph) as WorkflowGraph
  }
  const results = body.toolResults ?? {}
  const live = s.tools?.(workspaceId, agentId)
  const tools: ToolRunner | undefined =
    Object.keys(results).length || live
      ? {
          run: async (tool, args, ctx) => {
            if (Object.hasOwn(results, ctx.nodeId)) return structuredClone(results[ctx.nodeId])
            if (!live) throw new WorkflowRunError('tool_not_available', ctx.nodeId, `tool node "${ctx.nodeId}" calls ${tool}, which cannot run here; give its result in toolResults`)
            return live.run(tool, args, ctx)
          },
        }
      : undefined
  try {
    return await testRun(graph, body.inputs, {
      llm: s.llm,
      tools,
      knowledge: await s.knowledge?.(workspaceId, agentId),
      maxVisits: s.maxVisits,
      today: s.today ?? (() => nowIso().slice(0, 10)),
      variables: body.variables ?? {},
    })
  } catch (err) {
    if (err instanceof WorkflowRunError) throw runError(err)
    throw err
  }
}
