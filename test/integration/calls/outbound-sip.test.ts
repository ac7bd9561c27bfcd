// POST /api/calls places a real outbound call: SIPp as the callee (its built-in uas, echoing our
// audio back) rings and answers, and the agent's opening line reaches it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'
import { loudWindows } from '../../helpers/speech.ts'
import { join } from 'node:path'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')

let t: TestAppliance

beforeAll(async () => {
  // SIPp's -rtp_echo sends our own voice straight back, an echo no phone would let through:
  // without barge-in limits this high the agent would interrupt itself
  t = await startTestAppliance({ LLM_PROVIDER: 'none', BARGE_IN_MAX_BACKCHANNEL_MS: 60_000, BARGE_IN_MIN_SPEECH_MS: 60_000,
    VOICE_PRICE_TABLE: JSON.stringify({ telephony: { inbound: 0.004, outbound: 0.013 } }),
  })
})

afterAll(async () => {
  await t?.stop()
})

const greeting = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Hello {{name}}, this is Acme calling about your appointment.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [{ from: 'start', to: 'bye' }],
}

describe('POST /api/calls', () => {
  test('a SIPp uas rings and answers, the opening line with the dynamic variables reaches it, and the call is recorded', async () => {
    const port = await freePort()
    const callee = sipp(['-sn', 'uas', '-rtp_echo', '-i', '127.0.0.1', '-p', String(port), '-mp', String(await freePort()), '-m', '1'], 30)
    const target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${port}`, direction: 'outbound' })
    expect((await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: greeting })).status).toBe(200)

    const placed = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550199', dynamicVariables: { name: 'Dana' } } })
    expect(placed.status, JSON.stringify(placed.body)).toBe(200)
    expect(placed.body.call).toMatchObject({ type: 'outbound', from: target.e164, to: '+14155550199', agentId: target.agentId, outcome: null })
    // the call as it is once the INVITE is sent; a callee quicker than this machine has answered already
    expect(['ringing', 'in_progress']).toContain(placed.body.call.status)
    expect(placed.body.call.dynamicVariables).toMatchObject({ name: 'Dana', caller_number: '+14155550199' })

    const run = await callee.exited
    expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
    const call = await waitForCall(t, (c) => c.id === placed.body.call.id && c.status === 'ended')
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
    expect(call.answeredAt).not.toBeNull()
    expect(call.transcript.map((i: any) => i.text)).toEqual(['Hello Dana, this is Acme calling about your appointment.', 'Goodbye.'])
    // 0.013 USD a minute from the configured price table, for the answered seconds
    expect(call.cost.telephony).toBeGreaterThan(0)
    expect(call.cost.telephony).toBeLessThan((0.013 * (call.duration + 1)) / 60)

    // SIPp echoed what it received: the callee's side of our recording carries the agent's speech
    const { left } = readStereoWav(`${t.dataDir}/recordings/${call.id}.wav`)
    expect(loudWindows(left, 1600, -35)).toBeGreaterThan(10)
  }, 40_000)

  test('a busy callee ends the call as busy without running the agent', async () => {
    const port = await freePort()
    const callee = sipp(['-sf', join(FIXTURES, 'uas-busy.xml'), '-i', '127.0.0.1', '-p', String(port), '-m', '1'], 20)
    const target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${port}`, direction: 'outbound' })
    const placed = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550123' } })
    expect(placed.status).toBe(200)
    expect((await callee.exited).code).toBe(0)
    const call = await waitForCall(t, (c) => c.id === placed.body.call.id && c.status === 'ended')
    expect(call).toMatchObject({ outcome: 'busy', endReason: 'busy (486)', answeredAt: null, transcript: [], duration: 0 })
  })

  test('an inbound agent cannot place calls', async () => {
    const target = await setupCallTarget(t, { direction: 'inbound' })
    const r = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550123', agentId: target.agentId } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.fields).toEqual([{ path: 'agentId', message: expect.stringContaining('inbound agent') }])
  })

  test('bad requests are 422 with one issue per field and create nothing', async () => {
    const target = await setupCallTarget(t, { direction: 'inbound' })
    const before = (await t.api('GET', '/api/calls?limit=100')).body.calls.length
    const bad = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '555' } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details.fields.map((f: any) => f.path).sort()).toEqual(['agentId', 'to'])
    const unknown = await t.api('POST', '/api/calls', { body: { phoneNumberId: 'pn_nope', to: '+14155550123', agentId: target.agentId } })
    expect(unknown.status).toBe(422)
    expect(unknown.body.error.details.fields.map((f: any) => f.path)).toContain('phoneNumberId')
    const missing = await t.api('POST', '/api/calls', { body: { to: '+14155550123' } })
    expect(missing.status).toBe(422)
    expect((await t.api('GET', '/api/calls?limit=100')).body.calls.length).toBe(before)
  })
})
