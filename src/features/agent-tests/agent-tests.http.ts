// Test cases of an agent under /api/agents/{id}/tests. Another workspace's agent answers 404,
// exactly as a missing one does.
import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../http/auth.ts'
import type { Db } from '../../platform/db/index.ts'
import { notFound } from '../../platform/errors.ts'
import { IdParams, NextCursor, Ok, PaginationQuery } from '../../platform/schema/index.ts'
import { AgentTestCase, CaseInput, CasePatch } from './agent-tests.model.ts'
import * as service from './agent-tests.service.ts'
import { findAgent } from '../agents/index.ts'
import { generateCases, MAX_GENERATED } from './generate.ts'
import { faqCase, faqRows } from './knowledge-cases.ts'

const CaseParams = t.Object({ id: t.String(), test_id: t.String() })
const One = t.Object({ test: AgentTestCase })

export interface AgentTestHooks {
  /** The agent's saved workflow, if it has one. */
  workflowOf(workspaceId: string, agentId: string): Promise<Parameters<typeof generateCases>[0] | undefined>
}

export function agentTestsController(db: Db, auth: AuthPlugin, hooks: AgentTestHooks) {
  return new Elysia({ prefix: '/api/agents/:id/tests', tags: ['Agent tests'] })
    .use(auth)
    .post('', async ({ params, body, principal }) => ({ test: await service.createCase(db, principal.workspaceId, params.id, body) }), {
      permission: 'agents:write',
      params: IdParams,
      body: CaseInput,
      response: One,
      detail: {
        summary: 'Create a test case: a scripted caller and what the agent should do',
        description: "The caller's voice defaults to espeak-ng en-us and must differ from the agent's. A said expectation gives exactly one of phrase and pattern. See docs/agent-tests.md.",
      },
    })
    .get('', async ({ params, query, principal }) => service.listCases(db, principal.workspaceId, params.id, query), {
      permission: 'agents:read',
      params: IdParams,
      query: PaginationQuery,
      response: t.Object({ tests: t.Array(AgentTestCase), nextCursor: NextCursor }),
      detail: { summary: "List the agent's test cases, newest first" },
    })
    .post(
      '/generate',
      async ({ params, principal }) => {
        const agent = await findAgent(db, principal.workspaceId, params.id)
        if (!agent) throw notFound('agent')
        const graph = await hooks.workflowOf(principal.workspaceId, params.id)
        const fromWorkflow = graph ? await generateCases(graph) : []
        const fromFaq = (await faqRows(db, principal.workspaceId, agent.knowledgeBaseIds ?? [], MAX_GENERATED)).flatMap((r) => faqCase(r) ?? [])
        const tests = []
        for (const c of fromWorkflow) tests.push(await service.createCase(db, principal.workspaceId, params.id, c, 'workflow'))
        for (const c of fromFaq) tests.push(await service.createCase(db, principal.workspaceId, params.id, c, 'knowledge'))
        return { tests }
      },
      {
        permission: 'agents:write',
        params: IdParams,
        response: t.Object({ tests: t.Array(AgentTestCase) }),
        detail: {
          summary: "Generate starting cases: one per path of the agent's workflow to each end node, one per FAQ question of its knowledge bases",
          description: 'A workflow case presses the keys (or says a keyword of) each edge on its path and expects the path and the end; an FAQ case asks the question and expects an answer from the knowledge base. An agent with neither gets none. The operator edits them afterwards.',
        },
      },
    )
    .get('/:test_id', async ({ params, principal }) => ({ test: await service.getCase(db, principal.workspaceId, params.id, params.test_id) }), {
      permission: 'agents:read',
      params: CaseParams,
      response: One,
      detail: { summary: 'Get a test case' },
    })
    .patch('/:test_id', async ({ params, body, principal }) => ({ test: await service.updateCase(db, principal.workspaceId, params.id, params.test_id, body) }), {
      permission: 'agents:write',
      params: CaseParams,
      body: CasePatch,
      response: One,
      detail: { summary: 'Change a test case (the fields given are replaced whole)' },
    })
    .delete(
      '/:test_id',
      async ({ params, principal }) => {
        await service.deleteCase(db, principal.workspaceId, params.id, params.test_id)
        return { ok: true as const }
      },
      { permission: 'agents:write', params: CaseParams, response: Ok, detail: { summary: 'Delete a test case' } },
    )
}
