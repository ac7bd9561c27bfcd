// Runs an agent's test cases as real SIP calls from the test phone, a few at a time, judges each
// finished call against its case and stores the results as they come. A run is written before
// its first call, so a restart finds it and marks it interrupted rather than losing it.
import type { Db } from '../../platform/db/index.ts'
import { AppError, notFound, validation } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import type { Logger } from '../../platform/log.ts'
import type { CallRow } from '../calls/index.ts'
import { enqueueWebhookEvent } from '../webhooks/index.ts'
import type { WorkflowGraph } from '../workflows/index.ts'
import type { AgentTestCase } from './agent-tests.model.ts'
import type { AgentTestResultTable, AgentTestRunTable } from './agent-tests.table.ts'
import * as cases from './agent-tests.repository.ts'
import { toCase } from './agent-tests.service.ts'
import { judge, type JudgedCall, type Verdict } from './judge.ts'
import { type PhoneDeps, placeTestCall } from './phone.ts'
import type { RunBody } from './runs.model.ts'
import * as repo from './runs.repository.ts'
import { runView } from './runs.view.ts'

export interface RunnerDeps {
  db: Db
  log: Logger
  phone: PhoneDeps
  /** Test calls at once. */
  concurrency: number
  graphOf(workspaceId: string, agentId: string): Promise<WorkflowGraph | undefined>
  /** How long an ended call's record may take to be written (the call worker finishes it). */
  recordWaitMs?: number
}

export class AgentTestRunner {
  private readonly running = new Set<Promise<void>>()
  /** Once stopping, nothing more is written: the runs left running are interrupted at the next start. */
  private stopping = false

  constructor(private readonly d: RunnerDeps) {}

  /** Marks the runs a previous process left running as interrupted. */
  recover(): Promise<number> {
    return repo.interruptLeftover(this.d.db, nowIso())
  }

  /** Stores a run of the agent's cases (all, or `testIds`) and starts its calls; returns at once. */
  async start(workspaceId: string, agentId: string, body: RunBody) {
    const agent = await this.d.db.selectFrom('agents').select(['id', 'webhook_url']).where('workspace_id', '=', workspaceId).where('id', '=', agentId).executeTakeFirst()
    if (!agent) throw notFound('agent')
    if (this.stopping) throw new AppError(503, 'not_ready', 'the appliance is stopping', undefined, { 'retry-after': '30' })
    let picked = (await cases.allCases(this.d.db, workspaceId, agentId)).map(toCase)
    if (body.testIds) {
      const missing = body.testIds.filter((id) => !picked.some((c) => c.id === id))
      if (missing.length) throw validation(missing.map((id) => ({ path: `testIds[${body.testIds!.indexOf(id)}]`, message: `${id} is not a test case of this agent` })))
      picked = picked.filter((c) => body.testIds!.includes(c.id))
    }
    if (!picked.length) throw new AppError(422, 'validation_failed', 'the agent has no test cases to run', { fields: [{ path: 'testIds', message: 'the agent has no test cases: create some first (POST /api/agents/{id}/tests)' }] })
    const now = nowIso()
    const run: AgentTestRunTable = { id: newId('trun'), workspace_id: workspaceId, agent_id: agentId, version: body.version ?? 'published', status: 'running', total: picked.length, passed: 0, failed: 0, created_at: now, finished_at: null }
    const results: AgentTestResultTable[] = picked.map((c, position) => ({
      id: newId('tres'), run_id: run.id, workspace_id: workspaceId, test_id: c.id, name: c.name, status: 'pending', call_id: null, verdicts: '[]', error: null, position, started_at: null, finished_at: null,
    }))
    await repo.insertRun(this.d.db, run, results)
    const work = this.execute(run, picked, results, agent.webhook_url).catch((err) => this.d.log.error({ err, runId: run.id }, 'agent test run failed'))
    this.running.add(work)
    void work.finally(() => this.running.delete(work))
    return runView(run, results)
  }

  /** The appliance stops: no new run, and runs in progress are left for recover() to mark interrupted. */
  stop(): void {
    this.stopping = true
  }

  /** Resolves once every run in progress has finished (tests, a graceful stop). */
  async settled(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running])
  }

  private async execute(run: AgentTestRunTable, picked: AgentTestCase[], results: AgentTestResultTable[], webhookUrl: string | null): Promise<void> {
    const graph = await this.d.graphOf(run.workspace_id, run.agent_id)
    let next = 0
    let passed = 0
    const width = Math.max(1, Math.min(this.d.concurrency, picked.length))
    await Promise.all(Array.from({ length: width }, async () => {
      while (next < picked.length) {
        if (this.stopping) return
        const i = next++
        const ok = await this.runCase(run, picked[i]!, results[i]!, graph)
        if (ok) passed++
      }
    }))
    if (this.stopping) return
    const finished = { status: (passed === picked.length ? 'passed' : 'failed') as 'passed' | 'failed', passed, failed: picked.length - passed, finished_at: nowIso() }
    await this.d.db.transaction().execute(async (trx) => {
      await repo.finishRun(trx, run.id, finished)
      if (webhookUrl) {
        const view = runView({ ...run, ...finished }, await repo.resultsOf(trx, [run.id]))
        await enqueueWebhookEvent(trx, { workspaceId: run.workspace_id, url: webhookUrl, type: 'agent.tests.completed', agentId: run.agent_id, data: { run: view } })
      }
    })
  }

  private async runCase(run: AgentTestRunTable, c: AgentTestCase, result: AgentTestResultTable, graph: WorkflowGraph | undefined): Promise<boolean> {
    await repo.updateResult(this.d.db, result.id, { status: 'running', started_at: nowIso() })
    let set: Partial<AgentTestResultTable>
    try {
      const call = await placeTestCall(this.d.phone, { workspaceId: run.workspace_id, agentId: run.agent_id, draft: run.version === 'draft' }, c.caller)
      const row = await this.recordOf(run.workspace_id, call.sipCallId)
      if (!row) set = { status: 'error', error: call.answered ? 'the test call left no call record' : (call.reason ?? 'the test call was not answered') }
      else {
        const verdicts = judge(c.expectations, judgedCall(row), graph)
        set = { status: verdicts.every((v) => v.passed) ? 'passed' : 'failed', call_id: row.id, verdicts: JSON.stringify(verdicts), error: call.answered ? null : (call.reason ?? null) }
      }
    } catch (err) {
      this.d.log.warn({ err, runId: run.id, testId: c.id }, 'agent test call failed')
      set = { status: 'error', error: `the test call could not be placed: ${(err as Error).message}` }
    }
    if (this.stopping) return false
    await repo.updateResult(this.d.db, result.id, { ...set, finished_at: nowIso() })
    return set.status === 'passed'
  }

  /** The ended record of the test call; the agent's side writes it as its call ends. */
  private async recordOf(workspaceId: string, sipCallId: string): Promise<CallRow | undefined> {
    const end = Date.now() + (this.d.recordWaitMs ?? 15_000)
    for (;;) {
      const row = await repo.endedTestCall(this.d.db, workspaceId, sipCallId)
      if ((row && row.status === 'ended') || Date.now() > end) return row
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

export function judgedCall(row: CallRow): JudgedCall {
  const metrics = JSON.parse(row.metrics || '{}') as { turns?: JudgedCall['turns'] }
  return {
    outcome: row.status === 'ended' ? row.outcome : null,
    endReason: row.end_reason,
    transcript: JSON.parse(row.transcript || '[]'),
    turns: metrics.turns ?? [],
    toolCalls: JSON.parse(row.tool_calls || '[]'),
  }
}

export type { Verdict }
