import { Elysia, t } from 'elysia'
import type { Config } from '../config.ts'
import type { Db } from '../db/index.ts'
import type { AuthPlugin } from '../http/auth.ts'
import { IdParams, NextCursor, Ok } from '../http/models.ts'
import type { Resolver } from '../net/index.ts'
import { Agent, CreateAgentBody, ListAgentsQuery, UpdateAgentBody } from './agents.model.ts'
import * as service from './agents.service.ts'

export { Agent } from './agents.model.ts'
export type { AgentRole, AgentType } from './agents.table.ts'
export { findAgent as findAgentRow } from './agents.repository.ts'
export { type AgentSnapshot, snapshotAgent } from './snapshot.ts'
export { agentReadiness, type BrainKind, type Readiness } from './readiness.ts'
export { checkTools, TOOL_NAMES, TOOLS, type ToolDefinition } from './tools.ts'
export { fillTemplate, templateVariables } from './variables.ts'
export { createAgent, getAgent, updateAgent, publishAgent, deleteAgent, type AgentRules } from './agents.service.ts'

export function agentsController(db: Db, config: Config, auth: AuthPlugin, resolve?: Resolver) {
  const rules: service.AgentRules = {
    urlPolicy: { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
    resolve,
  }
  const One = t.Object({ agent: Agent })
  return new Elysia({ prefix: '/api/agents', tags: ['Agents'] })
    .use(auth)
    .post('', async ({ body, principal }) => ({ agent: await service.createAgent(db, principal.workspaceId, body, rules) }), {
      permission: 'agents:write',
      body: CreateAgentBody,
      response: One,
      detail: { summary: 'Create an agent (only name is required; see the docs for defaults)' },
    })
    .get('', ({ query, principal }) => service.listAgents(db, principal.workspaceId, query), {
      permission: 'agents:read',
      query: ListAgentsQuery,
      response: t.Object({ agents: t.Array(Agent), nextCursor: NextCursor }),
      detail: { summary: 'List agents, newest first; filter by agentType and role' },
    })
    .get('/:id', async ({ params, principal }) => ({ agent: await service.getAgent(db, principal.workspaceId, params.id) }), {
      permission: 'agents:read',
      params: IdParams,
      response: One,
      detail: { summary: 'Get an agent' },
    })
    .put('/:id', async ({ params, body, principal }) => ({ agent: await service.updateAgent(db, principal.workspaceId, params.id, body, rules) }), {
      permission: 'agents:write',
      params: IdParams,
      body: UpdateAgentBody,
      response: One,
      detail: {
        summary: 'Update an agent: any subset of its fields; changes apply from the next call',
        description:
          'welcome and voice are replaced whole (omitted members take defaults). webhookUrl must be https and must not resolve to ' +
          'loopback, private, link-local or metadata addresses (WEBHOOK_ALLOW_HTTP / WEBHOOK_ALLOW_PRIVATE). 422 names each field path.',
      },
    })
    .post('/:id/publish', async ({ params, principal }) => ({ agent: await service.publishAgent(db, principal.workspaceId, params.id) }), {
      permission: 'agents:write',
      params: IdParams,
      response: One,
      detail: { summary: 'Publish: copy promptDraft to promptPublished (the prompt calls use)' },
    })
    .delete(
      '/:id',
      async ({ params, principal }) => {
        await service.deleteAgent(db, principal.workspaceId, params.id)
        return { ok: true as const }
      },
      {
        permission: 'agents:write',
        params: IdParams,
        response: Ok,
        detail: {
          summary: 'Delete an agent; 409 while a phone number or an outbound job uses it',
          description: '409 conflict with details {reason: "agent_in_use", phoneNumberIds}; unassign the agent from its numbers first.',
        },
      },
    )
}
