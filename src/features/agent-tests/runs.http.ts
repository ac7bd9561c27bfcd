// Runs of an agent's test cases: started, listed and read under /api/agents/{id}/tests.
import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../../http/auth.ts'
import type { Db } from '../../platform/db/index.ts'
import { finishPage, pageLimit } from '../../platform/db/index.ts'
import { AppError, notFound } from '../../platform/errors.ts'
import { IdParams, NextCursor, PaginationQuery } from '../../platform/schema/index.ts'
import { findAgentRow } from '../agents/index.ts'
import type { AgentTestRunner } from './runner.ts'
import { RunBody, TestRun } from './runs.model.ts'
import * as repo from './runs.repository.ts'
import { runView } from './runs.view.ts'

const One = t.Object({ run: TestRun })

export function agentTestRunsController(db: Db, auth: AuthPlugin, runner: () => AgentTestRunner | undefined) {
  const agentOf = async (workspaceId: string, id: string) => {
    if (!(await findAgentRow(db, workspaceId, id))) throw notFound('agent')
  }
  return new Elysia({ prefix: '/api/agents/:id/tests', tags: ['Agent tests'] })
    .use(auth)
    .post(
      '/run',
      async ({ params, body, principal }) => {
        await agentOf(principal.workspaceId, params.id)
        const r = runner()
        if (!r) throw new AppError(503, 'not_ready', 'the telephony side is not running yet', undefined, { 'retry-after': '5' })
        return { run: await r.start(principal.workspaceId, params.id, body) }
      },
      {
        permission: 'agents:test',
        params: IdParams,
        body: RunBody,
        response: One,
        detail: {
          summary: "Run the agent's test cases as real SIP calls from the built-in test phone",
          description:
            'Answers at once with the run (status running); each case becomes a call of type test over loopback, through the SIP stack, media engine and voice stack, ' +
            'AGENT_TEST_CONCURRENCY at a time. Poll GET .../tests/runs/{runId}; each result links its call record and says which expectation failed and why.',
        },
      },
    )
    .get(
      '/runs',
      async ({ params, query, principal }) => {
        await agentOf(principal.workspaceId, params.id)
        const rows = await repo.listRuns(db, principal.workspaceId, params.id, query)
        const page = finishPage(rows, pageLimit(query), (r) => [r.created_at, r.id])
        const results = await repo.resultsOf(db, page.items.map((r) => r.id))
        return { runs: page.items.map((r) => runView(r, results)), nextCursor: page.nextCursor }
      },
      {
        permission: 'agents:read',
        params: IdParams,
        query: PaginationQuery,
        response: t.Object({ runs: t.Array(TestRun), nextCursor: NextCursor }),
        detail: { summary: "List the agent's test runs, newest first" },
      },
    )
    .get(
      '/runs/:run_id',
      async ({ params, principal }) => {
        const run = await repo.findRun(db, principal.workspaceId, params.id, params.run_id)
        if (!run) throw notFound('test run')
        return { run: runView(run, await repo.resultsOf(db, [run.id])) }
      },
      { permission: 'agents:read', params: t.Object({ id: t.String(), run_id: t.String() }), response: One, detail: { summary: 'Get a test run and its results' } },
    )
}
