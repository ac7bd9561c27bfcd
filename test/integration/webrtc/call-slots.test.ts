// WEB_CALLS_MAX bounds web calls and media streams together: when a web call holds the one place,
// another web call and a media stream are refused with 503 before anything starts, and the place
// comes back when the call ends.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { startWebCall } from '../../helpers/web-client.ts'

let t: TestAppliance
let agentId: string

beforeAll(async () => {
  t = await startTestAppliance({ WEB_CALLS_MAX: 1, WEBRTC_HOST_ADDRESSES: '127.0.0.1', TTS_PROVIDER: 'flite' })
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Desk' } })
  agentId = agent.body.agent.id
  const wf = await t.api('PUT', `/api/agents/${agentId}/workflow`, {
    body: { nodes: [{ id: 'start', type: 'start', config: { text: 'Hello.' } }, { id: 'bye', type: 'end', config: {} }], edges: [{ from: 'start', to: 'bye', condition: { type: 'keywords', keywords: ['bye'] } }] },
  })
  expect(wf.status, JSON.stringify(wf.body)).toBe(200)
})

afterAll(async () => {
  await t?.stop()
})

test('one place under WEB_CALLS_MAX=1 is shared by web calls and media streams, and given back when the call ends', async () => {
  const first = await startWebCall(t.url, t.adminKey, agentId)
  try {
    await first.connected
    await expect(startWebCall(t.url, t.adminKey, agentId)).rejects.toThrow(/503/)
    const stream = await fetch(`${t.url}/api/agents/${agentId}/media-stream`, {
      headers: { authorization: `Bearer ${t.adminKey}`, upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' },
    })
    expect(stream.status).toBe(503)
    expect(((await stream.json()) as any).error.message).toMatch(/WEB_CALLS_MAX/)
    await first.hangUp()
  } finally {
    await first.close()
  }
  await waitForCall(t, (c) => c.id === first.callId && c.status === 'ended')
  const second = await startWebCall(t.url, t.adminKey, agentId)
  await second.hangUp()
})
