import type { AgentTestResultTable, AgentTestRunTable } from './agent-tests.table.ts'
import type { TestRun } from './runs.model.ts'

/** A run as the API shows it, with its results in the order the cases were taken. */
export function runView(run: AgentTestRunTable, results: AgentTestResultTable[]): TestRun {
  return {
    id: run.id,
    agentId: run.agent_id,
    version: run.version as TestRun['version'],
    status: run.status,
    total: run.total,
    passed: run.passed,
    failed: run.failed,
    createdAt: run.created_at,
    finishedAt: run.finished_at,
    results: results
      .filter((r) => r.run_id === run.id)
      .sort((a, b) => a.position - b.position)
      .map((r) => ({ testId: r.test_id, name: r.name, status: r.status, callId: r.call_id, verdicts: JSON.parse(r.verdicts), error: r.error, startedAt: r.started_at, finishedAt: r.finished_at })),
  }
}
