// Calls on every core: each call runs in one of the call workers; a worker that dies takes only
// its own calls down (BYE to the phone, the call row closed with end reason call-worker-failed,
// counted in the metrics), is restarted, and the next call is carried as usual.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import type { CallWorkerPool } from '../../../src/features/calls/index.ts'
import { writeWav } from '../../../src/realtime/voice/audio.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip, type BaresipPhone } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { silence } from '../../helpers/speech.ts'
import { until } from '../../helpers/until.ts'

type Family = { name: string; metrics: { value: string; labels?: Record<string, string> }[] }

let t: TestAppliance
let target: CallSetup
// long enough that a call is still talking while the test kills its neighbour's worker
const WELCOME = 'Hello and welcome. Please hold the line while we look at this for you.'

beforeAll(async () => {
  t = await startTestAppliance({ CALL_WORKERS: '2', CALL_FALLBACK_MESSAGE: 'Goodbye.' })
  target = await setupCallTarget(t, { agent: { welcome: { mode: 'agent_speaks_first', message: WELCOME } } })
})

afterAll(async () => {
  await t?.stop()
})

const pool = () => t.appliance.callPlacer as CallWorkerPool
const quietMicrophone = () => writeWav({ samples: silence(20_000, 8000).samples, sampleRate: 8000 })
const dial = (): BaresipPhone => dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, quietMicrophone(), { timeoutSec: 40 })

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const families = parsePrometheusTextFormat(await (await fetch(`${t.url}/metrics`)).text()) as Family[]
  const f = families.find((x) => x.name === name)
  return Number(f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? 0)
}

test('two calls run in different call workers; killing one worker hangs up only its call, closes its row with call-worker-failed, and the restarted worker takes the next call', async () => {
  // one after the other, so each phone's call row is known
  const a = dial()
  let b: BaresipPhone | undefined
  try {
    const callA = await waitForCall(t, (c) => c.status === 'in_progress', 15_000)
    b = dial()
    const callB = await waitForCall(t, (c) => c.status === 'in_progress' && c.id !== callA.id, 15_000)
    const slotA = pool().slotOf(callA.id)!
    const slotB = pool().slotOf(callB.id)!
    expect(slotA).toBeDefined()
    expect(slotB).toBeDefined()
    expect(slotA.index).not.toBe(slotB.index)

    await slotA.kill()
    expect(await a.saw('session closed'), a.output()).toBe(true)
    const endedA = await waitForCall(t, (c) => c.id === callA.id && c.status === 'ended')
    expect(endedA).toMatchObject({ outcome: 'failed', endReason: 'call-worker-failed' })
    // the other worker's call goes on and ends the way its agent ends it
    expect((await t.api('GET', `/api/calls/${callB.id}`)).body.call.status).toBe('in_progress')
    expect(await b.saw('session closed'), b.output()).toBe(true)
    const endedB = await waitForCall(t, (c) => c.id === callB.id && c.status === 'ended')
    expect(endedB.endReason).not.toBe('call-worker-failed')
    expect(endedB.outcome).toBe('not_configured') // no LLM configured: greet, explain, hang up
    expect(endedB.recordingUrl).toBeTruthy()

    expect(await metric('voice_agent_call_worker_failures_total')).toBe(1)
    expect(await metric('voice_agent_call_worker_failed_calls_total')).toBe(1)
    expect(await metric('voice_agent_calls_total', { direction: 'inbound', outcome: 'failed' })).toBe(1)
  } finally {
    await Promise.all([a.stop(), b?.stop()])
  }

  await until(() => pool().slots.every((s) => s.running), 10_000, 'the failed worker to be restarted')
  const c = dial()
  try {
    const callC = await waitForCall(t, (x) => x.status === 'in_progress' && x.outcome === null, 15_000)
    expect(pool().slotOf(callC.id)).toBeDefined()
    expect(await c.saw('session closed'), c.output()).toBe(true)
    const endedC = await waitForCall(t, (x) => x.id === callC.id && x.status === 'ended')
    expect(endedC.outcome).toBe('not_configured')
  } finally {
    await c.stop()
  }
}, 90_000)

test('a call whose worker dies keeps in its record the transcript spoken before the crash', async () => {
  const lines = ['Hello, this is the order line.', 'Please key in your order number.']
  const workflowTarget = await setupCallTarget(t)
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: lines[0] } },
      { id: 'ask', type: 'collect', config: { prompt: lines[1], kind: 'digits', variable: 'order', minDigits: 4, maxDigits: 8 } },
      { id: 'bye', type: 'end', config: { text: 'Thank you.' } },
    ],
    edges: [
      { from: 'start', to: 'ask' },
      { from: 'ask', to: 'bye' },
    ],
  }
  expect((await t.api('PUT', `/api/agents/${workflowTarget.agentId}/workflow`, { body: graph })).status).toBe(200)
  const phone = dialWithBaresip(`sip:${workflowTarget.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, quietMicrophone(), { timeoutSec: 40 })
  try {
    const call = await waitForCall(t, (c) => c.status === 'in_progress' && c.to === workflowTarget.e164, 15_000)
    // both lines have been played (the main thread heard of each from the worker) and the call waits for keys
    await until(() => (t.appliance.calls.transcriptSoFar(call.id)?.length ?? 0) >= 2, 20_000, 'both lines to be spoken')
    await pool().slotOf(call.id)!.kill()
    const ended = await waitForCall(t, (c) => c.id === call.id && c.status === 'ended')
    expect(ended).toMatchObject({ outcome: 'failed', endReason: 'call-worker-failed' })
    expect(ended.transcript.map((i: { role: string; text: string }) => [i.role, i.text])).toEqual([
      ['agent', lines[0]],
      ['agent', lines[1]],
    ])
    expect(ended.transcript[1].timestamp).toBeGreaterThan(ended.transcript[0].timestamp)
  } finally {
    await phone.stop()
  }
}, 60_000)
