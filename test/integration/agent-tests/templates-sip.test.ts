// The acceptance suite of issue 48: the cases generated from each template's workflow pass
// offline over G.711 (PCMU), each a real SIP call from the test phone, the caller speaking with
// espeak-ng, the agent hearing it through Silero and pocketsphinx.
import { afterAll, beforeAll, expect } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { untilAsync } from '../../helpers/until.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'

const installed = PocketsphinxStt.available()
let t: TestAppliance
beforeAll(async () => {
  if (!installed) return
  t = await startTestAppliance({ VAD_ENGINE: 'silero', STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', MEDIA_CODECS: 'PCMU', AGENT_TEST_CONCURRENCY: 4 })
})
afterAll(() => t?.stop())

testNeedingPackage('pocketsphinx-en-us', installed)('the generated cases of the receptionist, booking, sales and follow-up templates pass over G.711', async () => {
  const runs: Record<string, any> = {}
  for (const template of ['receptionist', 'booking', 'sales', 'followup']) {
    const agentId = (await t.api('POST', '/api/agents', { body: { name: `${template} desk`, template, business: 'Acme' } })).body.agent.id
    const generated = await t.api('POST', `/api/agents/${agentId}/tests/generate`)
    expect(generated.body.tests.length).toBeGreaterThanOrEqual(3)
    const started = await t.api('POST', `/api/agents/${agentId}/tests/run`, { body: {} })
    expect(started.status, JSON.stringify(started.body)).toBe(200)
    runs[template] = { agentId, id: started.body.run.id }
  }
  const done: Record<string, any> = {}
  await untilAsync(async () => {
    for (const [template, r] of Object.entries(runs)) {
      const run = (await t.api('GET', `/api/agents/${r.agentId}/tests/runs/${r.id}`)).body.run
      if (run?.status !== 'running') done[template] = run
    }
    return Object.keys(done).length === 4
  }, 400_000, 'the four runs', 1000)
  for (const [template, run] of Object.entries(done)) {
    const failures = run.results.filter((x: any) => x.status !== 'passed').map((x: any) => ({ name: x.name, error: x.error, failed: x.verdicts.filter((v: any) => !v.passed) }))
    expect(failures, `${template}: ${JSON.stringify(failures, null, 1)}`).toEqual([])
    expect(run.status).toBe('passed')
  }
  const call = (await t.api('GET', `/api/calls/${done.booking.results[0].callId}`)).body
  expect((call.call ?? call).type).toBe('test')
}, 420_000)
