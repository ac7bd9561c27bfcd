// A run survives a restart: the appliance stops while a test call is in progress, and the next
// start shows the run and its unfinished case as interrupted rather than losing them.
import { afterAll, expect, test } from 'bun:test'
import { apiClient, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { untilAsync } from '../../helpers/until.ts'

let t: TestAppliance | undefined
afterAll(() => t?.stop())

test('a run in progress when the appliance stops is interrupted after the restart, its case too', async () => {
  t = await startTestAppliance({ LLM_PROVIDER: 'none', STT_PROVIDER: 'none' })
  const agentId = (await t.api('POST', '/api/agents', { body: { name: 'Slow desk' } })).body.agent.id
  const graph = { nodes: [{ id: 'start', type: 'start', config: { text: 'Press 1.' } }, { id: 'bye', type: 'end', config: {} }], edges: [{ from: 'start', to: 'bye', condition: { type: 'dtmf', digits: '1' } }] }
  expect((await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: graph })).status).toBe(200)
  const slow = { name: 'waits a minute', caller: { turns: [{ type: 'silence', ms: 60_000 }, { type: 'keys', digits: '1' }] }, expectations: [{ type: 'ended' }] }
  const testId = (await t.api('POST', `/api/agents/${agentId}/tests`, { body: slow })).body.test.id
  const runId = (await t.api('POST', `/api/agents/${agentId}/tests/run`, { body: {} })).body.run.id
  // the test call is up: the agent's side has its record open
  await untilAsync(async () => (await t!.appliance.database.db.selectFrom('calls').select('id').where('type', '=', 'test').where('status', '=', 'in_progress').execute()).length === 1, 20_000, 'the test call', 100)
  const dataDir = t.dataDir
  await t.stop({ keepData: true })
  t = await startTestAppliance({ LLM_PROVIDER: 'none', STT_PROVIDER: 'none' }, dataDir)
  const run = (await t.api('GET', `/api/agents/${agentId}/tests/runs/${runId}`)).body.run
  expect(run).toMatchObject({ status: 'interrupted', total: 1, passed: 0 })
  expect(run.finishedAt).toBeString()
  expect(run.results).toEqual([expect.objectContaining({ testId, status: 'interrupted', error: 'the appliance stopped before this case finished' })])
  // the restarted appliance runs again
  const api = apiClient(t.url, t.adminKey)
  expect((await api('GET', `/api/agents/${agentId}/tests/runs`)).body.runs.map((r: any) => r.id)).toEqual([runId])
}, 120_000)
