// A real call with no LLM configured: the number's agent runs its workflow; the caller's key
// (RFC 4733 from SIPp's own pcap) picks the branch that transfers, and the appliance sends REFER.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'

const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
const SALES = 'sip:sales@127.0.0.1:5999'

let t: TestAppliance
const logs: any[] = []

beforeAll(async () => {
  t = await startTestAppliance({ LLM_PROVIDER: 'none', LOG_LEVEL: 'info' }, undefined, {
    write: (chunk) => {
      for (const line of chunk.split('\n')) if (line) logs.push(JSON.parse(line))
    },
  })
})

afterAll(async () => {
  await t?.stop()
})

test('with no LLM, a workflow agent answers; the caller presses 1 and the appliance transfers the call by REFER; the transcript shows the say nodes', async () => {
  const target = await setupCallTarget(t)
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Welcome to Acme. You called {{called_number}}.' } },
      { id: 'menu', type: 'say', config: { text: 'Press 1 for sales or 2 for support.' } },
      { id: 'sales', type: 'transfer', config: { target: SALES } },
      { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
    ],
    edges: [
      { from: 'start', to: 'menu' },
      { from: 'menu', to: 'sales', condition: { type: 'dtmf', digits: '1' } },
      { from: 'menu', to: 'bye', condition: { type: 'dtmf', digits: '2' } },
    ],
  }
  const put = await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })
  expect(put.status, JSON.stringify(put.body)).toBe(200)

  const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf-refer.xml'), { PCAP_DIR: SIPP_PCAP_DIR, DIGIT: '1', REFER_TO: SALES })
  const run = await sipp(['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 30).exited
  expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)

  const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164)
  expect(call).toMatchObject({ outcome: 'transferred', endReason: 'transferred' })
  const said = call.transcript.filter((i: any) => i.role === 'agent').map((i: any) => i.text)
  expect(said).toEqual([`Welcome to Acme. You called ${target.e164}.`, 'Press 1 for sales or 2 for support.'])
  expect(call.transcript.filter((i: any) => i.role === 'user').map((i: any) => i.text)).toEqual(['[DTMF] 1'])
  expect(call.metrics.model).toBe('')
  // the transfer is one structured log line, between the answer and the end
  const events = logs.filter((l) => l.callId === call.id).map((l) => l.event)
  expect(events).toEqual(['call_start', 'call_answer', 'call_transfer', 'call_end'])
  expect(logs.find((l) => l.callId === call.id && l.event === 'call_transfer')).toMatchObject({ target: SALES, ok: true, via: 'refer', number: target.e164 })
  expect(logs.find((l) => l.callId === call.id && l.event === 'call_answer')).toMatchObject({ brain: 'workflow' })
}, 40_000)
