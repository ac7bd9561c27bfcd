import { Elysia, t } from 'elysia'
import { type Config, outboundUrlPolicy } from '../../platform/config/index.ts'
import type { Db } from '../../platform/db/index.ts'
import { invalidField } from '../../platform/errors.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { IdParams, NextCursor, Ok } from '../../platform/schema/index.ts'
import type { Resolver } from '../../platform/net/index.ts'
import { defaultLlmModel, defaultVoice, servingFromConfig } from '../providers/index.ts'
import { Agent, CreateAgentBody, ListAgentsQuery, UpdateAgentBody } from './agents.model.ts'
import * as service from './agents.service.ts'
import { agentReadiness, ReadinessSchema, type UnreachableProvider } from './readiness/index.ts'
import { AGENT_TEMPLATES, templateAgent } from './templates.ts'
import { type AgentWorkflowHooks, NO_WORKFLOWS } from './workflow-hooks.ts'


export function agentsController(
  db: Db,
  config: Config,
  auth: AuthPlugin,
  resolve?: Resolver,
  workflows: AgentWorkflowHooks = NO_WORKFLOWS,
  unreachable: () => UnreachableProvider[] = () => [],
) {
  const rules: service.AgentRules = {
    urlPolicy: outboundUrlPolicy(config),
    resolve,
    defaultLlmModel: defaultLlmModel(config, service.DEFAULT_LLM_MODEL),
    defaultVoice: defaultVoice(config),
  }
  const rulesFor = (p: { role: string }): service.AgentRules => ({ ...rules, revealResolution: p.role === 'admin' })
  const serving = servingFromConfig(config)
  const ready = async (a: Agent) => ({ ...a, readiness: agentReadiness({ ...a, hasWorkflow: await workflows.hasWorkflow(a.workspaceId, a.id) }, serving, unreachable()) })
  const AgentOut = t.Object({ ...Agent.properties, readiness: ReadinessSchema })
  const One = t.Object({ agent: AgentOut })
  return new Elysia({ prefix: '/api/agents', tags: ['Agents'] })
    .use(auth)
    .post(
      '',
      async ({ body, principal }) => {
        const { template, business, ...rest } = body
        const tpl = template ? AGENT_TEMPLATES[template] : undefined
        if (business !== undefined && !tpl) throw invalidField('business', 'is only for a template: without one, write the name into the prompt')
        const agent = await service.createAgent(db, principal.workspaceId, tpl ? { ...templateAgent(tpl, business), ...rest } : rest, rulesFor(principal))
        if (tpl) {
          // the agent and its template's workflow come together or not at all
          await workflows.attachWorkflow(principal.workspaceId, agent.id, tpl.workflow).catch(async (err) => {
            await service.deleteAgent(db, principal.workspaceId, agent.id)
            throw err
          })
        }
        return { agent: await ready(agent) }
      },
      {
        permission: 'agents:write',
        body: CreateAgentBody,
        response: One,
        detail: {
          summary: 'Create an agent (only name is required; see the docs for defaults)',
          description:
            'template "receptionist" fills what the body leaves out and attaches a workflow that works with no LLM and no STT ' +
            '(keys 1 and 2, or the words hours and message). business (with a template only, else 422) is written in place of ' +
            "{{business}} in the template's prompts. readiness says whether calls can converse and what runs them.",
        },
      },
    )
    .get('', async ({ query, principal }) => {
      const page = await service.listAgents(db, principal.workspaceId, query)
      return { agents: await Promise.all(page.agents.map(ready)), nextCursor: page.nextCursor }
    }, {
      permission: 'agents:read',
      query: ListAgentsQuery,
      response: t.Object({ agents: t.Array(AgentOut), nextCursor: NextCursor }),
      detail: { summary: 'List agents, newest first; filter by agentType and role' },
    })
    .get('/:id', async ({ params, principal }) => ({ agent: await ready(await service.getAgent(db, principal.workspaceId, params.id)) }), {
      permission: 'agents:read',
      params: IdParams,
      response: One,
      detail: { summary: 'Get an agent' },
    })
    .put('/:id', async ({ params, body, principal }) => ({ agent: await ready(await service.updateAgent(db, principal.workspaceId, params.id, body, rulesFor(principal))) }), {
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
    .patch('/:id', async ({ params, body, principal }) => ({ agent: await ready(await service.updateAgent(db, principal.workspaceId, params.id, body, rulesFor(principal), 'merge')) }), {
      permission: 'agents:write',
      params: IdParams,
      body: UpdateAgentBody,
      response: One,
      detail: {
        summary: 'Partly update an agent: like PUT, but welcome and voice keep the members the body leaves out',
        description:
          'Same body, validation and permission as PUT. welcome and voice are merged member by member (a new voice.provider ' +
          'without voiceId takes that provider\'s default voice); every other field is replaced when present. 422 names each ' +
          'field path; 409 conflict when another write changed the agent between read and write; 404 for an agent of another workspace.',
      },
    })
    .post('/:id/publish', async ({ params, principal }) => ({ agent: await ready(await service.publishAgent(db, principal.workspaceId, params.id)) }), {
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
export { voicePreviewController } from './voice-preview.http.ts'
