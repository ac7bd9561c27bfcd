// Campaigns dial only into headroom: while the node has none, the dispatcher's calls are refused
// before any INVITE, the contacts are given back without an attempt and none fails; once there is
// room the same contacts are called. The capacity model is injected and changed by the test.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { readMessages, startCallees } from '../../helpers/campaign-callees.ts'
import { setupCallTarget } from '../../helpers/calls.ts'
import { waitForJob } from '../../helpers/jobs.ts'
import { untilAsync } from '../../helpers/until.ts'
import type { CapacityModel } from '../../../src/features/calls/index.ts'

let t: TestAppliance
let room = 0
const capacity: CapacityModel = { figures: (callsUp) => ({ capacity: room, callsUp, headroom: room - callsUp }) }

beforeAll(async () => {
  t = await startTestAppliance({ BARGE_IN_MAX_BACKCHANNEL_MS: 60_000, BARGE_IN_MIN_SPEECH_MS: 60_000 }, undefined, undefined, { capacity })
})
afterAll(async () => {
  await t?.stop()
})

const refusedOutbound = async () => {
  const text = await (await fetch(`${t.url}/metrics`)).text()
  return Number(/^voice_agent_calls_refused_total\{kind="outbound",reason="no_headroom"\} (\d+)$/m.exec(text)?.[1] ?? 0)
}

test('with no headroom a campaign dials nobody and fails no contact; with room it calls them all', async () => {
  const callees = await startCallees(2, 60)
  const x = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${callees.port}`, direction: 'outbound' })
  const graph = { nodes: [{ id: 'start', type: 'start', config: { text: 'Hello, this is a short reminder.' } }, { id: 'bye', type: 'end', config: { text: 'Bye.' } }], edges: [{ from: 'start', to: 'bye' }] }
  expect((await t.api('PUT', `/api/agents/${x.agentId}/workflow`, { body: graph })).status).toBe(200)
  const made = await t.api('POST', '/api/outbound/jobs', {
    body: { agentId: x.agentId, phoneNumberId: x.numberId, contacts: [{ to: '+14155550131' }, { to: '+14155550132' }], settings: { maxConcurrent: 2, callingWindow: { start: '00:00', end: '24:00' } } },
  })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  const id = made.body.job.id
  await untilAsync(async () => (await refusedOutbound()) >= 2, 15_000, 'the dispatcher to be refused for headroom', 100)
  const held = (await t.api('GET', `/api/outbound/jobs/${id}`)).body.job
  expect(held).toMatchObject({ status: 'in_progress', completedContacts: 0, failedContacts: 0 })
  expect(readMessages(callees.messageFile).length).toBe(0)

  room = 10
  const done = await waitForJob(t, id, (j) => j.status === 'completed', 40_000)
  expect(done).toMatchObject({ completedContacts: 2, failedContacts: 0 })
  expect((await callees.proc.exited).code).toBe(0)
}, 70_000)
