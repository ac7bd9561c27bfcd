// A web call end to end with a browser stand-in (werift): the API answers the offer, the agent's
// greeting reaches the client as Opus, the caller's words reach the transcript, and the call is
// recorded as type web with the member as `from`. Tenancy and permission are checked from the
// other side.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, memberKey, type TestAppliance } from '../../helpers/appliance.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { fliteSpeech, loudWindows, silence } from '../../helpers/speech.ts'
import { until, untilAsync } from '../../helpers/until.ts'
import { startWebCall } from '../../helpers/web-client.ts'
import { hoursWorkflow } from '../../helpers/hours-workflow.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { concatFrames } from '../../../src/realtime/voice/audio.ts'

const WORKFLOW = hoursWorkflow('Hello from the front desk. Ask about hours or billing.')

let t: TestAppliance
let stt: FakeDeepgram
let agentId: string

beforeAll(async () => {
  stt = startFakeDeepgram()
  t = await startTestAppliance({
    STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'test-key', TTS_PROVIDER: 'flite', WEBRTC_HOST_ADDRESSES: '127.0.0.1',
  })
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Front desk', promptDraft: 'draft prompt', welcome: { mode: 'agent_speaks_first', message: 'Hello from the front desk' } } })
  expect(agent.status, JSON.stringify(agent.body)).toBe(200)
  agentId = agent.body.agent.id
  const wf = await t.api('PUT', `/api/agents/${agentId}/workflow`, { body: WORKFLOW })
  expect(wf.status, JSON.stringify(wf.body)).toBe(200)
})

afterAll(async () => {
  await t?.stop()
  stt?.stop()
})

/** 48 kHz RTP ticks: the keepalive period of discontinuous transmission. */
const DTX_GAP = 400 * 48
/** The timestamp step from each packet to the next. */
const gapsOf = (p: { timestamp: number }[]) => p.slice(1).map((x, i) => (x.timestamp - p[i]!.timestamp) >>> 0)

test('a web call greets the browser, sends nothing but keepalives while the agent is silent, hears its words and is recorded as type web from the member', async () => {
  const member = await memberKey(t, 'tester@example.com')
  stt.utterances.push('what are your opening hours')
  const client = await startWebCall(t.url, member.key, agentId)
  try {
    for (const line of client.answerSdp.split(/\r?\n/).filter((l) => l.startsWith('a=candidate'))) expect(line.split(' ')[4]).toBe('127.0.0.1')
    await client.connected
    await until(() => loudWindows(client.heard(), 320, -40) > 10, 20_000, 'the greeting to reach the browser')
    // after the greeting the agent waits in silence, and sends (almost) nothing meanwhile
    await until(() => gapsOf(client.received()).some((g) => g >= DTX_GAP), 20_000, 'the agent to stop sending while silent')
    const beforeReply = client.received().length
    const words = fliteSpeech('what are your opening hours')
    client.say(concatFrames([words, silence(1500, 16000)]).samples)
    let live: any
    await untilAsync(async () => {
      const r = await fetch(`${t.url}/api/agents/${agentId}/web-calls/${client.callId}`, { headers: { authorization: `Bearer ${member.key}` } })
      live = await r.json()
      return live.transcript?.some((i: any) => i.role === 'user') ?? false
    }, 20_000, 'the caller line in the live view', 100)
    expect(live.transcript.find((i: any) => i.role === 'user').text).toBe('what are your opening hours')
    // the reply starts a talkspurt after the silence: its first packet carries the marker (RFC 7587)
    await until(() => client.received().some((p, i) => i >= beforeReply && p.marker), 20_000, 'the reply to start with the marker')
  } finally {
    await client.close()
  }
  const call = await waitForCall(t, (c) => c.id === client.callId && c.status === 'ended', 20_000)
  expect(call).toMatchObject({ type: 'web', from: member.userId, agentId, outcome: 'completed', endReason: 'agent_hangup' })
  // the workflow moved on the spoken keyword
  expect(call.transcript.map((i: any) => i.text)).toContain('We are open nine to five.')
  expect(call.testDraft).toBeUndefined()
  expect(call.transcript.map((i: any) => i.role)).toContain('user')
  expect(call.recordingUrl).toBeTruthy()
  expect(call.cost.telephony).toBe(0)
  const listed = await t.api('GET', '/api/calls?type=web')
  expect(listed.body.calls.map((c: any) => c.id)).toContain(client.callId)
})

test('a test call of an unsaved workflow runs it and is marked testDraft; the saved workflow is unchanged', async () => {
  const draft = { ...WORKFLOW, nodes: WORKFLOW.nodes.map((n) => (n.id === 'start' ? { ...n, config: { text: 'This is the draft greeting.' } } : n)) }
  const client = await startWebCall(t.url, t.adminKey, agentId, { draft: true, workflow: draft })
  try {
    await client.connected
    await untilAsync(async () => {
      const live = await t.api('GET', `/api/agents/${agentId}/web-calls/${client.callId}`)
      return live.body.transcript?.some((i: any) => i.role === 'agent') ?? false
    }, 20_000, 'the draft greeting in the live view', 100)
    await client.hangUp()
  } finally {
    await client.close()
  }
  const call = await waitForCall(t, (c) => c.id === client.callId && c.status === 'ended', 20_000)
  expect(call.testDraft).toBe(true)
  expect(call.transcript[0].text).toBe('This is the draft greeting.')
  const saved = await t.api('GET', `/api/agents/${agentId}/workflow`)
  expect(saved.body.workflow.nodes[0].config.text).toBe('Hello from the front desk. Ask about hours or billing.')
})

test('an unsaved workflow that is not valid is refused with 422 naming the field, and no call starts', async () => {
  const bad = { nodes: [{ id: 'start', type: 'start', config: {} }], edges: [{ from: 'start', to: 'nowhere' }] }
  const r = await t.api('POST', `/api/agents/${agentId}/web-calls`, { body: { sdp: 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\n', workflow: bad } })
  expect(r.status).toBe(422)
  expect(r.body.error.details.fields[0].path).toMatch(/^workflow\./)
})

test("another workspace cannot call the agent, nor see or hang up its web call", async () => {
  const other = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
  expect(other.status, JSON.stringify(other.body)).toBe(200)
  const otherKey = other.body.apiKey?.key ?? other.body.key
  expect(typeof otherKey, JSON.stringify(other.body)).toBe('string')
  await expect(startWebCall(t.url, otherKey, agentId)).rejects.toThrow(/404/)
  const client = await startWebCall(t.url, t.adminKey, agentId)
  try {
    const peek = await fetch(`${t.url}/api/agents/${agentId}/web-calls/${client.callId}`, { headers: { authorization: `Bearer ${otherKey}` } })
    expect(peek.status).toBe(404)
    const hang = await fetch(`${t.url}/api/agents/${agentId}/web-calls/${client.callId}`, { method: 'DELETE', headers: { authorization: `Bearer ${otherKey}` } })
    expect(hang.status).toBe(404)
    expect((await t.api('GET', `/api/agents/${agentId}/web-calls/${client.callId}`)).status).toBe(200)
  } finally {
    await client.hangUp()
  }
})

test('an offer that is not WebRTC audio is refused with 422 and no call row', async () => {
  const before = (await t.api('GET', '/api/calls?type=web')).body.calls.length
  const r = await t.api('POST', `/api/agents/${agentId}/web-calls`, { body: { sdp: 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n' } })
  expect(r.status).toBe(422)
  expect(r.body.error.code).toBe('validation_failed')
  expect((await t.api('GET', '/api/calls?type=web')).body.calls.length).toBe(before)
})
