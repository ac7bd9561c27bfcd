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
  t = await startTestAppliance({ VAD_ENGINE: 'silero', STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', MEDIA_CODECS: 'PCMU', AGENT_TEST_CONCURRENCY: 2 })
})
afterAll(() => t?.stop())

testNeedingPackage('pocketsphinx-en-us', installed)('the generated cases of the receptionist, booking, sales and follow-up templates pass over G.711', async () => {
  // the receptionist answers from an FAQ: its generated case asks the question out loud
  const base = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'Acme FAQ' } })).body.knowledgeBase.id
  const faq = 'question,answer\n"How much is parking?","Parking is free for the first two hours."\n'
  expect((await t.api('POST', `/api/knowledge-bases/${base}/documents`, { body: { name: 'faq.csv', contentBase64: Buffer.from(faq).toString('base64') } })).status).toBe(200)
  const runs: Record<string, any> = {}
  for (const template of ['receptionist', 'booking', 'sales', 'followup']) {
    const extra = template === 'receptionist' ? { knowledgeBaseIds: [base] } : {}
    const agentId = (await t.api('POST', '/api/agents', { body: { name: `${template} desk`, template, business: 'Acme', ...extra } })).body.agent.id
    const generated = await t.api('POST', `/api/agents/${agentId}/tests/generate`)
    expect(generated.body.tests.length).toBeGreaterThanOrEqual(3)
    // pocketsphinx hears espeak-ng's question poorly ("to talk to"): the operator gives this case flite's rms
    for (const c of generated.body.tests.filter((x: any) => x.source === 'knowledge')) {
      expect((await t.api('PATCH', `/api/agents/${agentId}/tests/${c.id}`, { body: { caller: { turns: c.caller.turns, voice: { engine: 'flite', voice: 'rms' } } } })).status).toBe(200)
    }
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
    const failures = await Promise.all(run.results.filter((x: any) => x.status !== 'passed').map(async (x: any) => ({ name: x.name, error: x.error, failed: x.verdicts.filter((v: any) => !v.passed), transcript: x.callId ? ((await t.api('GET', `/api/calls/${x.callId}`)).body.call ?? {}).transcript : null })))
    expect(failures, `${template}: ${JSON.stringify(failures, null, 1)}`).toEqual([])
    expect(run.status).toBe('passed')
  }
  expect(done.receptionist.results.map((r: any) => r.name)).toContain('FAQ: How much is parking?')
  const call = (await t.api('GET', `/api/calls/${done.booking.results[0].callId}`)).body
  expect((call.call ?? call).type).toBe('test')
}, 420_000)
