// A suite of N agent test cases (default 20) as real SIP calls over loopback, against the same
// appliance's single-case run as the baseline in the same process: issue 48 asks that the suite
// take at most 2x the longest case's call time. Prints both and their ratio.
//   bun run scripts/bench/agent-tests.ts [cases] [concurrency]
import { startTestAppliance } from '../../test/helpers/appliance.ts'

const cases = Number(process.argv[2] ?? 20)
const concurrency = Number(process.argv[3] ?? cases)
const t = await startTestAppliance({ LLM_PROVIDER: 'none', STT_PROVIDER: 'none', AGENT_TEST_CONCURRENCY: concurrency, CALL_WORKERS: '2' })
const graph = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Welcome to the test desk. Press 1 for our hours, or 2 to leave.' } },
    { id: 'hours', type: 'say', config: { text: 'We are open from nine in the morning to five in the evening.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [
    { from: 'start', to: 'hours', condition: { type: 'dtmf', digits: '1' } },
    { from: 'start', to: 'bye', condition: { type: 'dtmf', digits: '2' } },
    { from: 'hours', to: 'bye' },
  ],
}
const newCase = (i: number) => ({ name: `case ${i}`, caller: { turns: [{ type: 'keys', digits: i % 2 ? '2' : '1' }] }, expectations: [{ type: 'ended', outcome: 'completed' }] })

async function agentWith(n: number): Promise<string> {
  const id = (await t.api('POST', '/api/agents', { body: { name: `bench ${n}` } })).body.agent.id
  await t.api('PUT', `/api/agents/${id}/workflow`, { body: graph })
  for (let i = 0; i < n; i++) await t.api('POST', `/api/agents/${id}/tests`, { body: newCase(i) })
  return id
}

async function run(agentId: string) {
  const started = performance.now()
  const id = (await t.api('POST', `/api/agents/${agentId}/tests/run`, { body: {} })).body.run.id
  for (;;) {
    const r = (await t.api('GET', `/api/agents/${agentId}/tests/runs/${id}`)).body.run
    if (r.status !== 'running') {
      const caseMs = r.results.map((x: any) => Date.parse(x.finishedAt) - Date.parse(x.startedAt))
      return { wallMs: performance.now() - started, longestMs: Math.max(...caseMs), status: r.status, passed: r.passed }
    }
    await Bun.sleep(200)
  }
}

try {
  const single = await run(await agentWith(1)) // case 0: the longer path (keys 1, hours, goodbye)
  const suite = await run(await agentWith(cases))
  console.log(`single case: ${Math.round(single.longestMs)} ms call (${single.status})`)
  console.log(`suite of ${cases} at ${concurrency} at once: ${Math.round(suite.wallMs)} ms wall, longest case ${Math.round(suite.longestMs)} ms, ${suite.passed}/${cases} passed`)
  console.log(`ratio suite wall / single case call: ${(suite.wallMs / single.longestMs).toFixed(2)} (issue 48 asks <= 2)`)
} finally {
  await t.stop()
}
