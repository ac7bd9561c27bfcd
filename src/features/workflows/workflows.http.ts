import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../http/auth.ts'
import type { Config } from '../../platform/config/index.ts'
import type { Db } from '../../platform/db/index.ts'
import { IdParams, Ok } from '../../platform/schema/index.ts'
import { workflowLlm } from '../../realtime/voice/registry/index.ts'
import { TestRunBody, TestRunResult, Workflow, WorkflowInput } from './workflows.model.ts'
import * as service from './workflows.service.ts'
import type { WorkflowService } from './workflows.service.ts'



export function workflowsController(s: WorkflowService, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/agents/:id/workflow', tags: ['Workflows'] })
    .use(auth)
    .get('', async ({ params, principal }) => ({ workflow: await service.getWorkflow(s, principal.workspaceId, params.id) }), {
      permission: 'agents:read',
      params: IdParams,
      response: t.Object({ workflow: Workflow }),
      detail: { summary: "Get the agent's workflow (404 when the agent has none)" },
    })
    .put('', async ({ params, body, principal }) => ({ workflow: await service.replaceWorkflow(s, principal.workspaceId, params.id, body) }), {
      permission: 'workflows:write',
      params: IdParams,
      body: WorkflowInput,
      response: t.Object({ workflow: Workflow }),
      detail: {
        summary: "Attach or replace the agent's workflow",
        description:
          'The whole graph is validated: exactly one start node, unique node and edge ids, every edge between existing nodes, ' +
          'every node reachable from start, at least one transfer or end node, only those without outgoing edges, at most one ' +
          'else edge per node, and each node config against its type. A 422 lists every issue in details.fields, each with ' +
          'rule, path, message and the nodeId or edgeIndex it is about.',
      },
    })
    .delete(
      '',
      async ({ params, principal }) => {
        await service.deleteWorkflow(s, principal.workspaceId, params.id)
        return { ok: true as const }
      },
      { permission: 'workflows:write', params: IdParams, response: Ok, detail: { summary: 'Detach the workflow from the agent' } },
    )
    .post('/test-run', ({ params, body, principal }) => service.testRunWorkflow(s, principal.workspaceId, params.id, body), {
      permission: 'workflows:write',
      params: IdParams,
      body: TestRunBody,
      response: TestRunResult,
      detail: {
        summary: 'Test-run a workflow',
        description:
          'Drives the workflow engine over a transcript and returns the path taken. Deterministic unless a conversation node or an ' +
          'intent edge is reached, which need the configured LLM (422 with details.reason llm_not_configured and the nodeId when there is none).',
      },
    })
}

/** What the workflows module needs from the agents module (and, for tool nodes, the tools module). */
export type AgentHooks = Pick<WorkflowService, 'agentExists' | 'enabledTools' | 'tools' | 'knowledge'>

/** Mounts the workflows module with the appliance's config: test runs get the model calls' workflows get. */
export function workflowsFeature(deps: { db: Db; config: Config }, auth: AuthPlugin, agents: AgentHooks) {
  return workflowsController({ db: deps.db, ...agents, llm: workflowLlm(deps.config), maxVisits: deps.config.WORKFLOW_MAX_VISITS }, auth)
}
