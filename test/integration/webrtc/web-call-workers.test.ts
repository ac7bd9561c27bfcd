// Web calls run in the call workers like SIP calls: the browser's peer is answered in the worker
// that carries the call, so neither its WebRTC work nor its conversation is on the main thread.
// A worker that dies ends its web call as call-worker-failed; the next web call is taken.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { CallWorkerPool } from '../../../src/features/calls/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { loudWindows } from '../../helpers/speech.ts'
import { until } from '../../helpers/until.ts'
import { startWebCall } from '../../helpers/web-client.ts'

let t: TestAppliance
let agentId: string
const pool = () => t.appliance.callPlacer as CallWorkerPool

beforeAll(async () => {
  t = await startTestAppliance({ CALL_WORKERS: '2', WEBRTC_HOST_ADDRESSES: '127.0.0.1', TTS_PROVIDER: 'flite' })
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Desk' } })
  agentId = agent.body.agent.id
  const wf = await t.api('PUT', `/api/agents/${agentId}/workflow`, {
    body: {
      nodes: [{ id: 'start', type: 'start', config: { text: 'Hello from a call worker. Say goodbye when you are done.' } }, { id: 'bye', type: 'end', config: {} }],
      edges: [{ from: 'start', to: 'bye', condition: { type: 'keywords', keywords: ['goodbye'] } }],
    },
  })
  expect(wf.status, JSON.stringify(wf.body)).toBe(200)
})

afterAll(async () => {
  await t?.stop()
})

test('a web call is answered and carried by a call worker; killing that worker ends it as call-worker-failed and the next web call is taken', async () => {
  const first = await startWebCall(t.url, t.adminKey, agentId)
  let killed: ReturnType<CallWorkerPool['slotOf']>
  try {
    await first.connected
    await until(() => pool().slotOf(first.callId) !== undefined, 10_000, 'the call to start in a worker')
    killed = pool().slotOf(first.callId)
    await until(() => loudWindows(first.heard(), 320, -40) > 10, 20_000, 'the greeting from the worker')
    await killed!.kill()
    const ended = await waitForCall(t, (c) => c.id === first.callId && c.status === 'ended', 20_000)
    expect(ended).toMatchObject({ type: 'web', outcome: 'failed', endReason: 'call-worker-failed' })
  } finally {
    await first.close()
  }
  await until(() => killed!.running, 10_000, 'the failed worker to be restarted')
  const next = await startWebCall(t.url, t.adminKey, agentId)
  try {
    await next.connected
    await until(() => pool().slotOf(next.callId) !== undefined, 10_000, 'the next call to start in a worker')
    await until(() => loudWindows(next.heard(), 320, -40) > 10, 20_000, 'the greeting of the next call')
    await next.hangUp()
  } finally {
    await next.close()
  }
  const done = await waitForCall(t, (c) => c.id === next.callId && c.status === 'ended', 20_000)
  expect(done.outcome).toBe('completed')
}, 90_000)
