// OUTBOUND_MAX_CALLS caps a node's live campaign calls across jobs, whatever each job allows.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { maxSimultaneous, readMessages, startCallees } from '../../helpers/campaign-callees.ts'
import { setupCallTarget } from '../../helpers/calls.ts'
import { waitForJob } from '../../helpers/jobs.ts'

let t: TestAppliance

beforeAll(async () => {
  t = await startTestAppliance({ OUTBOUND_MAX_CALLS: 2, BARGE_IN_MAX_BACKCHANNEL_MS: 60_000, BARGE_IN_MIN_SPEECH_MS: 60_000 })
})
afterAll(async () => {
  await t?.stop()
})

test('two jobs allowed 3 calls each never have more than OUTBOUND_MAX_CALLS (2) live together', async () => {
  const callees = await startCallees(6, 60)
  const x = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${callees.port}`, direction: 'outbound' })
  const graph = { nodes: [{ id: 'start', type: 'start', config: { text: 'Hello, this is a short reminder.' } }, { id: 'bye', type: 'end', config: { text: 'Bye.' } }], edges: [{ from: 'start', to: 'bye' }] }
  expect((await t.api('PUT', `/api/agents/${x.agentId}/workflow`, { body: graph })).status).toBe(200)
  const job = (first: number) =>
    t.api('POST', '/api/outbound/jobs', {
      body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: [0, 1, 2].map((i) => ({ to: `+14155550${first + i}` })), settings: { maxConcurrent: 3, callingWindow: { start: '00:00', end: '24:00' } } },
    })
  const [a, b] = await Promise.all([job(110), job(120)])
  let most = 0
  for (const r of [a, b]) {
    await waitForJob(t, r.body.job.id, (j) => {
      most = Math.max(most, t.appliance.campaigns.liveCalls)
      return j.status === 'completed'
    }, 40_000)
  }
  expect((await t.api('GET', `/api/outbound/jobs/${a.body.job.id}`)).body.job.progress.answered).toBe(3)
  expect((await t.api('GET', `/api/outbound/jobs/${b.body.job.id}`)).body.job.progress.answered).toBe(3)
  expect(most).toBeLessThanOrEqual(2)
  expect((await callees.proc.exited).code).toBe(0)
  expect(maxSimultaneous(readMessages(callees.messageFile))).toBe(2)
}, 60_000)
