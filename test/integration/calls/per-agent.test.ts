// Every call runs its own agent: three agents on three numbers of one appliance, called over SIP
// by baresip. Each LLM agent's audio comes from its own flite voice (measured: the pitch of the
// agent channel of the call's recording), the fake LLM receives each agent's model name, and a
// workflow agent's language reaches the STT (the fake Deepgram's query string). Config keys
// (LLM_MODEL, FLITE_VOICE, STT_LANGUAGE) are only defaults.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { medianPitchHz } from '../../helpers/pitch.ts'
import { fliteSpeech, silence } from '../../helpers/speech.ts'
import { concatFrames, writeWav } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'

let t: TestAppliance
let llm: FakeOpenAi
let stt: FakeDeepgram
const logs: any[] = []

beforeAll(async () => {
  llm = startFakeOpenAi()
  stt = startFakeDeepgram()
  t = await startTestAppliance(
    {
      VAD_ENGINE: 'silero',
      STT_PROVIDER: 'deepgram',
      DEEPGRAM_BASE_URL: stt.url,
      DEEPGRAM_API_KEY: 'test-key',
      STT_LANGUAGE: 'en-US',
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: 'test-key',
      LLM_MODEL: 'gpt-4o',
      TTS_PROVIDER: 'flite',
      FLITE_VOICE: 'rms',
      LOG_LEVEL: 'info',
      LOG_CALL_DETAIL: true,
    },
    undefined,
    {
      write: (chunk) => {
        for (const line of chunk.split('\n')) if (line) logs.push(JSON.parse(line))
      },
    },
  )
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
  stt?.stop()
})

/** Silence through the agent's welcome, one sentence, then silence until the agent hangs up. */
function callerWav(sentence: string): Uint8Array {
  const audio = concatFrames([silence(4500, 16000), fliteSpeech(sentence), silence(9000, 16000)])
  return writeWav({ samples: resample(audio.samples, 16000, 8000), sampleRate: 8000 })
}

async function callOnce(e164: string, sentence: string): Promise<any> {
  const phone = dialWithBaresip(`sip:${e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, callerWav(sentence), { timeoutSec: 40 })
  try {
    expect(await phone.saw('Call established'), phone.output()).toBe(true)
    return await waitForCall(t, (c) => c.status === 'ended' && c.to === e164, 30_000)
  } finally {
    await phone.stop()
  }
}

const agentPitch = (callId: string) => {
  const rec = readStereoWav(`${t.dataDir}/recordings/${callId}.wav`)
  return medianPitchHz(rec.right, rec.sampleRate)
}

const welcome = { mode: 'agent_speaks_first', message: 'Hello, you reached the front desk. How can I help you today?' }
const reply = (text: string) => ({ text, toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'Thank you for calling, goodbye.' }) }] })

test("two LLM agents on two numbers: each call speaks with its agent's flite voice (pitch measured in the recording) and asks the LLM for its agent's model", async () => {
  const high = await setupCallTarget(t, { agent: { welcome, voice: { provider: 'flite', voiceId: 'slt' }, llmModel: 'gpt-4o-mini' } })
  const low = await setupCallTarget(t, { agent: { welcome, voice: { provider: 'flite', voiceId: 'kal' }, llmModel: 'gpt-4.1-nano' } })

  stt.utterances.push('what are your opening hours')
  llm.chat.push(reply('We are open from nine in the morning until five in the evening.'))
  const first = await callOnce(high.e164, 'what are your opening hours')
  stt.utterances.push('where are you located')
  llm.chat.push(reply('We are on the main street, next to the station.'))
  const second = await callOnce(low.e164, 'where are you located')

  expect(first).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
  expect(second).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
  // the post-call analysis asks the same server for structured output; only the conversation's requests count
  const models = llm.requests.filter((r) => r.path === '/v1/chat/completions' && !r.body.response_format).map((r) => r.body.model)
  expect(models).toEqual(['gpt-4o-mini', 'gpt-4.1-nano'])
  expect(first.metrics.model).toBe('gpt-4o-mini')
  expect(second.metrics.model).toBe('gpt-4.1-nano')

  // slt is a female voice (~165 Hz), kal a male one (~90 Hz); the default FLITE_VOICE rms (~100 Hz) would give neither pair
  const sltHz = agentPitch(first.id)!
  const kalHz = agentPitch(second.id)!
  expect(sltHz).toBeGreaterThan(140)
  expect(kalHz).toBeLessThan(110)
  expect(sltHz / kalHz).toBeGreaterThan(1.4)

  // one structured line at start, answer and end of each call, at the default level
  for (const call of [first, second]) {
    const mine = logs.filter((l) => l.callId === call.id)
    expect(mine.map((l) => l.event)).toEqual(expect.arrayContaining(['call_start', 'call_answer', 'call_turn', 'call_end']))
    const end = mine.find((l) => l.event === 'call_end')
    expect(end).toMatchObject({ workspaceId: t.workspaceId, agentId: call.agentId, number: call.to, direction: 'inbound', outcome: 'completed', reason: 'agent_hangup' })
    expect(end.peer).toMatch(/^udp:127\.0\.0\.1:\d+$/)
    expect(end.durationSec).toBeGreaterThan(3)
  }
}, 120_000)

test("a workflow agent's language reaches the STT adapter, and the workflow call's row has per-turn latencies", async () => {
  const desk = await setupCallTarget(t, {
    agent: { language: 'es-ES', welcome: { mode: 'agent_speaks_first', message: 'Hello.' } },
  })
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Say sales or support.' } },
      { id: 'sales', type: 'say', config: { text: 'Sales it is.' } },
      { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
    ],
    edges: [
      { from: 'start', to: 'sales', condition: { type: 'keywords', keywords: ['sales'] } },
      { from: 'start', to: 'bye', condition: { type: 'else' } },
      { from: 'sales', to: 'bye' },
    ],
  }
  const put = await t.api('PUT', `/api/agents/${desk.agentId}/workflow`, { body: graph })
  expect(put.status, JSON.stringify(put.body)).toBe(200)
  const before = stt.connections.length
  stt.utterances.push('sales please')
  const call = await callOnce(desk.e164, 'sales please')

  expect(stt.connections.slice(before).map((c) => c.query.get('language'))).toContain('es-ES')
  expect(call.transcript.map((i: any) => i.text)).toEqual(expect.arrayContaining(['sales please', 'Sales it is.']))
  expect(call.metrics.turns.length).toBe(1)
  const [turn] = call.metrics.turns
  expect(turn.endpointingMs).toBeGreaterThanOrEqual(0)
  expect(turn.voiceToVoiceMs).toBeGreaterThan(0)
  expect(turn.ttsTtfbMs).toBeGreaterThan(0)
  expect(call.metrics.latencyP50).toBeGreaterThan(0)
}, 60_000)

test("a provider that fails for good is logged at warn with the provider's error, and the call ends provider_error", async () => {
  const desk = await setupCallTarget(t, { agent: { welcome, llmModel: 'gpt-4o-mini' } })
  stt.utterances.push('can you hear me')
  llm.chat.push({ failStatus: 400, body: JSON.stringify({ error: { message: 'The model does not exist', type: 'invalid_request_error' } }) })
  const call = await callOnce(desk.e164, 'can you hear me')
  expect(call).toMatchObject({ outcome: 'provider_error', endReason: 'provider_error' })
  const warn = logs.find((l) => l.callId === call.id && l.event === 'provider_error')
  expect(warn).toMatchObject({ level: 40, agentId: desk.agentId, number: desk.e164, direction: 'inbound' })
  expect(warn.provider).toMatch(/openai/)
  expect(warn.error).toContain('The model does not exist')
  const end = logs.find((l) => l.callId === call.id && l.event === 'call_end')
  expect(end).toMatchObject({ outcome: 'provider_error', reason: 'provider_error' })
  // and Prometheus counts it by provider
  expect(await t.appliance.metrics.text()).toMatch(/^voice_agent_provider_errors_total\{provider="openai-llm"\} [1-9]/m)
}, 60_000)
