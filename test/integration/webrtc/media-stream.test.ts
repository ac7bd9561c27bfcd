// The media-stream WebSocket with scripted clients: a program hears the agent's greeting, is
// heard (flite speech at 20 ms pace through the fake Deepgram), barges in, hangs up or is hung up
// on, in μ-law JSON and in 16 kHz PCM binary frames; calls are recorded as type stream. Bad
// frames, oversized messages, a flood and a client that stops reading get their close codes while
// the appliance keeps answering HTTP.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestAppliance, memberKey, type TestAppliance } from '../../helpers/appliance.ts'
import { waitForCall } from '../../helpers/calls.ts'
import { closeOf, connectStream, jsonOf, rawStream, type StreamClient } from '../../helpers/media-stream-client.ts'
import { fliteSpeech, silence } from '../../helpers/speech.ts'
import { until } from '../../helpers/until.ts'
import { hoursWorkflow } from '../../helpers/hours-workflow.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { concatFrames, rmsDbfs } from '../../../src/realtime/voice/audio.ts'

const LONG_GREETING =
  'Hello from the front desk. We answer questions about opening hours, billing, deliveries and returns, ' +
  'and about everything else you might want to know about our shop, our staff and our services.'
const workflow = hoursWorkflow

let t: TestAppliance
let stt: FakeDeepgram
let agentId: string
let longAgentId: string

async function workflowAgent(name: string, greeting: string): Promise<string> {
  const agent = await t.api('POST', '/api/agents', { body: { name, welcome: { mode: 'agent_speaks_first', message: greeting } } })
  expect(agent.status, JSON.stringify(agent.body)).toBe(200)
  const wf = await t.api('PUT', `/api/agents/${agent.body.agent.id}/workflow`, { body: workflow(greeting) })
  expect(wf.status, JSON.stringify(wf.body)).toBe(200)
  return agent.body.agent.id
}

beforeAll(async () => {
  stt = startFakeDeepgram()
  t = await startTestAppliance({ STT_PROVIDER: 'deepgram', DEEPGRAM_BASE_URL: stt.url, DEEPGRAM_API_KEY: 'test-key', TTS_PROVIDER: 'flite' })
  agentId = await workflowAgent('Front desk', 'Hello from the front desk. Ask about hours or billing.')
  longAgentId = await workflowAgent('Talkative desk', LONG_GREETING)
})

afterAll(async () => {
  await t?.stop()
  stt?.stop()
})

const connect = (id: string, key: string, format: 'mulaw' | 'pcm16' = 'mulaw') => connectStream(t.url, id, key, format)

/** The agent spoke (over 0.2 s of loud frames) and has been quiet for the last 0.6 s. */
const greetingOver = (c: StreamClient) => c.frames.filter(loud).length > 10 && c.frames.slice(-30).every((f) => rmsDbfs(f) < -50)
const loud = (f: Int16Array) => rmsDbfs(f) > -40
const events = (c: StreamClient, name: string) => c.messages.filter((m) => m.event === name)
const words = (text: string, tailMs = 1500) => concatFrames([fliteSpeech(text), silence(tailMs, 16000)]).samples

test('a program on the media stream hears the greeting, is heard, moves the workflow on its keyword and is hung up on with stop and 1000', async () => {
  const member = await memberKey(t, 'streamer@example.com')
  stt.utterances.push('what are your opening hours')
  const c = connect(agentId, member.key)
  const start = await c.started
  expect(c.messages[0]).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' })
  const callId: string = start.start.callSid
  expect(callId).toMatch(/^call_/)
  expect(start.start).toMatchObject({ streamSid: start.streamSid, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } })
  await until(() => greetingOver(c), 20_000, 'the whole greeting to reach the program')
  const media = events(c, 'media')
  expect(media[0].media).toMatchObject({ track: 'outbound', chunk: '1' })
  expect(media[0].media.payload.length).toBe(216) // 160 bytes: 20 ms of 8 kHz μ-law
  await c.say(words('what are your opening hours'))
  expect(await c.closed).toEqual({ code: 1000, reason: 'the call ended' })
  expect(c.messages.at(-1)).toMatchObject({ event: 'stop', streamSid: start.streamSid, stop: { callSid: callId } })
  const call = await waitForCall(t, (x) => x.id === callId && x.status === 'ended', 20_000)
  expect(call).toMatchObject({ type: 'stream', from: member.userId, agentId, outcome: 'completed', endReason: 'agent_hangup' })
  expect(call.transcript.map((i: any) => [i.role, i.text])).toEqual([
    ['agent', 'Hello from the front desk. Ask about hours or billing.'],
    ['user', 'what are your opening hours'],
    ['agent', 'We are open nine to five.'],
    ['agent', 'Goodbye.'],
  ])
  expect(call.recordingUrl).toBeTruthy()
}, 60_000)

test('a caller talking over the agent gets a clear, the agent falls silent at once, and the transcript keeps what was played', async () => {
  stt.utterances.push('what are your opening hours')
  const c = connect(longAgentId, t.adminKey)
  const callId: string = (await c.started).start.callSid
  await until(() => c.frames.filter(loud).length > 25, 20_000, 'half a second of the greeting')
  const speaking = c.say(words('what are your opening hours'))
  await until(() => c.clearAt.length > 0, 10_000, 'a clear')
  const at = c.clearAt[0]!
  expect(c.frames.slice(at - 10, at).some(loud)).toBe(true) // the agent was talking
  // the next 200 ms are silent, but for the resampler's tail in the first frame
  await until(() => c.frames.length >= at + 11, 5000, 'frames after the clear')
  const after = c.frames.slice(at + 1, at + 11).map((f) => Math.round(rmsDbfs(f)))
  expect(after.every((db) => db < -50), `levels after the clear: ${after.join(' ')} dBFS`).toBe(true)
  await speaking
  expect((await c.closed).code).toBe(1000)
  const call = await waitForCall(t, (x) => x.id === callId && x.status === 'ended', 20_000)
  expect(call).toMatchObject({ type: 'stream', outcome: 'completed', endReason: 'agent_hangup' })
  const [greeting, ...rest] = call.transcript.map((i: any) => [i.role, i.text])
  expect(greeting[0]).toBe('agent')
  expect(LONG_GREETING.startsWith(greeting[1])).toBe(true)
  expect(greeting[1].length).toBeLessThan(LONG_GREETING.length)
  expect(rest).toEqual([['user', 'what are your opening hours'], ['agent', 'We are open nine to five.'], ['agent', 'Goodbye.']])
}, 60_000)

test('pcm16: 16 kHz PCM in binary frames both ways, and a client stop ends the call as the caller hanging up', async () => {
  stt.utterances.push('what are your opening hours')
  const c = connect(agentId, t.adminKey, 'pcm16')
  const start = await c.started
  expect(start.start.mediaFormat).toEqual({ encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 })
  await until(() => greetingOver(c), 20_000, 'the whole greeting')
  expect(events(c, 'media')).toEqual([])
  expect(c.frames.every((f) => f.length === 320)).toBe(true) // 640 bytes: 20 ms
  const before = c.frames.length
  const speaking = c.say(words('what are your opening hours', 3000))
  await until(() => c.frames.slice(before).filter(loud).length > 10, 20_000, 'the answer to the spoken question')
  c.send({ event: 'stop' })
  expect(await c.closed).toEqual({ code: 1000, reason: 'stopped by the client' })
  await speaking
  const call = await waitForCall(t, (x) => x.id === start.start.callSid && x.status === 'ended', 20_000)
  expect(call).toMatchObject({ type: 'stream', outcome: 'completed', endReason: 'caller_hangup' })
  expect(call.transcript.map((i: any) => i.text).slice(0, 2)).toEqual(['Hello from the front desk. Ask about hours or billing.', 'what are your opening hours'])
}, 60_000)

test('a mark is echoed at once when no audio waits, after its audio has played when some does, and at once on clear', async () => {
  const c = connect(agentId, t.adminKey)
  await c.started
  const mediaCount = () => events(c, 'media').length
  const echoed = (name: string) => events(c, 'mark').some((m) => m.mark.name === name)
  c.send({ event: 'mark', mark: { name: 'nothing-waits' } })
  await until(() => echoed('nothing-waits'), 5000, 'the first echo')
  // one second of μ-law silence at once: it plays on the media clock, 20 ms a step
  const second = Buffer.alloc(8000, 0xff).toString('base64')
  let sentAt = mediaCount()
  c.send({ event: 'media', media: { payload: second } })
  c.send({ event: 'mark', mark: { name: 'after-a-second' } })
  await until(() => echoed('after-a-second'), 5000, 'the echo after the audio')
  expect(mediaCount() - sentAt).toBeGreaterThanOrEqual(45)
  sentAt = mediaCount()
  c.send({ event: 'media', media: { payload: second } })
  c.send({ event: 'mark', mark: { name: 'cleared' } })
  c.send({ event: 'clear' })
  await until(() => echoed('cleared'), 5000, 'the echo on clear')
  expect(mediaCount() - sentAt).toBeLessThan(25)
  c.send({ event: 'stop' })
  expect((await c.closed).code).toBe(1000)
}, 30_000)

test("another workspace's agent is refused before the upgrade with 404 and the error body, as are no key (401), a bad format (400) and a plain GET (426)", async () => {
  const other = await t.api('POST', '/api/workspaces', { body: { name: 'Elsewhere' } })
  const otherKey = other.body.apiKey?.key ?? other.body.key
  const port = Number(new URL(t.url).port)
  const path = `/api/agents/${agentId}/media-stream`
  const refusal = async (p: string, headers: Record<string, string>) => {
    const raw = rawStream(port, p, headers)
    const r = await raw.response
    raw.socket.destroy()
    return { status: r.status, code: JSON.parse(r.body).error.code }
  }
  expect(await refusal(path, { authorization: `Bearer ${otherKey}` })).toEqual({ status: 404, code: 'not_found' })
  expect(await refusal(path, {})).toEqual({ status: 401, code: 'unauthorized' })
  expect(await refusal(`${path}?format=opus`, { authorization: `Bearer ${t.adminKey}` })).toEqual({ status: 400, code: 'validation_failed' })
  const plain = await t.api('GET', path)
  expect([plain.status, plain.body.error.code, plain.headers.get('upgrade')]).toEqual([426, 'bad_request', 'websocket'])
})

test('bad frames and oversized messages are closed with 1003, 1007 or 1009 and a reason, and their calls end', async () => {
  const cases: ['mulaw' | 'pcm16', string | Uint8Array, number, RegExp][] = [
    ['mulaw', 'hello', 1007, /must be a JSON object/],
    ['mulaw', '[1,2]', 1007, /must be a JSON object/],
    ['mulaw', JSON.stringify({ event: 'dance' }), 1007, /unknown event "dance"/],
    ['mulaw', JSON.stringify({ event: 'media', media: { payload: 'not base64!' } }), 1007, /not valid base64/],
    ['mulaw', JSON.stringify({ event: 'dtmf', dtmf: { digit: 'X' } }), 1007, /dtmf\.digit/],
    ['mulaw', new Uint8Array(160), 1003, /binary frames carry audio only with format=pcm16/],
    ['pcm16', JSON.stringify({ event: 'media', media: { payload: 'AAAA' } }), 1003, /audio travels in binary frames/],
    ['pcm16', new Uint8Array(641), 1007, /even number of bytes/],
    ['mulaw', 'x'.repeat(70_000), 1009, /too big/],
    ['pcm16', new Uint8Array(70_000), 1009, /too big/],
  ]
  const closes = await Promise.all(
    cases.map(async ([format, bad]) => {
      const c = connect(agentId, t.adminKey, format)
      const start = await c.started
      c.send(bad)
      return { ...(await c.closed), callId: start.start.callSid as string }
    }),
  )
  expect(closes.map((c) => c.code)).toEqual(cases.map((c) => c[2]))
  closes.forEach((c, i) => expect(c.reason).toMatch(cases[i]![3]))
  expect((await fetch(`${t.url}/health`)).status).toBe(200)
  const call = await waitForCall(t, (x) => x.id === closes[0]!.callId && x.status === 'ended')
  expect(call.type).toBe('stream')
}, 30_000)

test('a client sending audio far faster than real time is closed with 1008, and HTTP answers meanwhile', async () => {
  const c = connect(agentId, t.adminKey)
  await c.started
  const sixSeconds = Buffer.alloc(48_000, 0xff).toString('base64')
  for (let i = 0; i < 5; i++) c.send({ event: 'media', media: { payload: sixSeconds } })
  expect((await fetch(`${t.url}/health`)).status).toBe(200)
  const closed = await c.closed
  expect(closed.code).toBe(1008)
  expect(closed.reason).toBe('more than 20 s of audio waits to be played; send audio at real time')
})

test('a client that stops reading is closed with 1008 once over 2 s of audio waits unsent, its call ends, and HTTP answers meanwhile', async () => {
  const raw = rawStream(Number(new URL(t.url).port), `/api/agents/${agentId}/media-stream`, { authorization: `Bearer ${t.adminKey}` })
  expect((await raw.response).status).toBe(101)
  const callId = jsonOf(await raw.frame((f) => jsonOf(f)?.event === 'start')).start.callSid
  raw.stopReading()
  // each mark is echoed at once (no audio waits), so the server has ever more to send
  const mark = JSON.stringify({ event: 'mark', mark: { name: 'm'.repeat(200) } })
  let status = ''
  for (let batch = 0; batch < 200 && status !== 'ended'; batch++) {
    for (let i = 0; i < 500; i++) raw.sendText(mark)
    expect((await fetch(`${t.url}/health`)).status).toBe(200)
    status = (await t.api('GET', `/api/calls/${callId}`)).body.call.status
  }
  expect(status).toBe('ended')
  const closing = raw.frame((f) => f.opcode === 8)
  raw.resumeReading()
  expect(closeOf(await closing)).toEqual({ code: 1008, reason: 'the client is not reading: over 2 s of audio waits unsent' })
  raw.socket.destroy()
}, 60_000)

test('a frame announcing 15 MiB is closed with 1009 after its head, before any of its bytes are sent or buffered', async () => {
  const raw = rawStream(Number(new URL(t.url).port), `/api/agents/${agentId}/media-stream?format=pcm16`, { authorization: `Bearer ${t.adminKey}` })
  expect((await raw.response).status).toBe(101)
  const callId = jsonOf(await raw.frame((f) => jsonOf(f)?.event === 'start')).start.callSid
  raw.sendFrameHead(15 * 1_048_576)
  expect(closeOf(await raw.frame((f) => f.opcode === 8)).code).toBe(1009)
  raw.socket.destroy()
  expect((await waitForCall(t, (x) => x.id === callId && x.status === 'ended')).type).toBe('stream')
})
