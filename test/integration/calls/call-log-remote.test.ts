// Call lines name the remote party (issue 23, "Logs"): the caller's number on an inbound call,
// the callee's on an outbound one, on call_start, call_answer and call_end alike. SIPp calls
// in and answers out; the lines are the appliance's real log output.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { startLoggedAppliance } from '../../helpers/logged-appliance.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'
import { until } from '../../helpers/until.ts'

let t: TestAppliance & { logs: string[] }

beforeAll(async () => {
  t = await startLoggedAppliance({ LLM_PROVIDER: 'none' })
})
afterAll(async () => {
  await t?.stop()
})

const callLines = (callId: string) =>
  t.logs.map((l) => JSON.parse(l) as Record<string, any>).filter((r) => r.callId === callId && ['call_start', 'call_answer', 'call_end'].includes(r.event))

describe('call log lines name the remote party', () => {
  test('an inbound call: call_start, call_answer and call_end carry the caller as remote', async () => {
    const target = await setupCallTarget(t, { agent: { welcome: { mode: 'user_speaks_first' } } })
    const port = await freePort()
    // SIPp's uac calls from sip:sipp@...; the service (-s) is the number it dials
    const run = await sipp(['-sn', 'uac', `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-d', '500', '-i', '127.0.0.1', '-p', String(port)]).exited
    expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
    const call = await waitForCall(t, (c) => c.phoneNumberId === target.numberId && c.status === 'ended', 60_000)
    await until(() => callLines(call.id).some((l) => l.event === 'call_end'), 50_000, 'call_end line')
    const lines = callLines(call.id)
    expect(lines.map((l) => l.event)).toEqual(['call_start', 'call_answer', 'call_end'])
    for (const l of lines) expect(l).toMatchObject({ direction: 'inbound', remote: call.from, number: target.e164 })
    expect(call.from).toBe('sipp')
  }, 120_000)

  test('an outbound call: the lines carry the callee as remote', async () => {
    const port = await freePort()
    const callee = sipp(['-sn', 'uas', '-i', '127.0.0.1', '-p', String(port), '-mp', String(await freePort()), '-m', '1'], 60)
    const target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${port}`, direction: 'outbound' })
    // the agent says one line and hangs up
    const workflow = { nodes: [{ id: 'start', type: 'start', config: { text: 'Hello.' } }, { id: 'bye', type: 'end', config: { text: 'Goodbye.' } }], edges: [{ from: 'start', to: 'bye' }] }
    expect((await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: workflow })).status).toBe(200)
    const placed = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550199' } })
    expect(placed.status, JSON.stringify(placed.body)).toBe(200)
    const id = placed.body.call.id as string
    const run = await callee.exited
    expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
    await until(() => callLines(id).some((l) => l.event === 'call_end'), 50_000, 'call_end line')
    const lines = callLines(id)
    expect(lines.map((l) => l.event)).toEqual(['call_start', 'call_answer', 'call_end'])
    for (const l of lines) expect(l).toMatchObject({ direction: 'outbound', remote: '+14155550199', number: target.e164 })
  }, 120_000)
})
