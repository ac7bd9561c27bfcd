// A whole conversation over SIP with a real phone (baresip): its microphone is a WAV of flite
// speech, the appliance hears it with Silero VAD, the fake Deepgram transcribes it, the fake
// LLM answers, flite speaks for real, the caller barges in, and end_call hangs up.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { dialWithBaresip } from '../../helpers/baresip.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { fliteSpeech, loudness, loudWindows, silence } from '../../helpers/speech.ts'
import { startFakeDeepgram, type FakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/openai.ts'
import { concatFrames, parseWav, writeWav } from '../../../src/realtime/voice/audio.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'

const LONG_REPLY =
  'We are open from nine in the morning until five in the evening, Monday to Friday. ' +
  'On Saturdays we open at ten and close at two in the afternoon. ' +
  'On Sundays and public holidays the office is closed, but you can always leave a message. ' +
  'We also offer evening appointments on Thursdays until eight.'

let t: TestAppliance
let llm: FakeOpenAi
let stt: FakeDeepgram
let target: CallSetup

beforeAll(async () => {
  llm = startFakeOpenAi()
  stt = startFakeDeepgram()
  t = await startTestAppliance({
    VAD_ENGINE: 'silero',
    STT_PROVIDER: 'deepgram',
    DEEPGRAM_BASE_URL: stt.url,
    DEEPGRAM_API_KEY: 'test-key',
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: llm.url,
    LLM_API_KEY: 'test-key',
    TTS_PROVIDER: 'flite',
  })
  target = await setupCallTarget(t, {
    agent: {
      promptPublished: 'You are the receptionist of {{business}}.',
      welcome: { mode: 'agent_speaks_first', message: 'Hello, thanks for calling. How can I help?' },
    },
  })
})

afterAll(async () => {
  await t?.stop()
  llm?.stop()
  stt?.stop()
})

/** The caller's side: silence through the welcome, a question, then an interruption of the answer. */
function callerWav(): Uint8Array {
  const rate = 16000
  const audio = concatFrames([
    silence(4500, rate),
    fliteSpeech('what are your opening hours'),
    silence(2600, rate),
    fliteSpeech('wait, I have another question'),
    silence(12000, rate),
  ])
  return writeWav({ samples: resample(audio.samples, rate, 8000), sampleRate: 8000 })
}

/** [first, last] window of each loud stretch, gaps under 0.5 s bridged. */
function loudRuns(db: number[]): [number, number][] {
  const runs: [number, number][] = []
  db.forEach((v, i) => {
    if (v <= -35) return
    const last = runs[runs.length - 1]
    if (last && i - last[1] <= 5) last[1] = i
    else runs.push([i, i])
  })
  return runs
}


test('a caller talks with the agent over SIP: heard, answered with real speech, interrupted, and hung up by end_call; the call row holds it all', async () => {
  stt.utterances.push('what are your opening hours', 'wait, I have another question')
  llm.chat.push(
    { text: LONG_REPLY, usage: { prompt: 120, completion: 60 } },
    { text: '', toolCalls: [{ name: 'end_call', arguments: JSON.stringify({ message: 'Of course, call us back any time. Goodbye!' }) }], usage: { prompt: 180, completion: 12 } },
  )
  const phone = dialWithBaresip(`sip:${target.e164.slice(1)}@127.0.0.1:${t.appliance.sip.udp}`, callerWav(), { timeoutSec: 40 })
  try {
    expect(await phone.saw('Call established'), phone.output()).toBe(true)
    expect(await phone.saw('session closed'), phone.output()).toBe(true)
    const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164, 20_000)
    expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup', type: 'inbound' })

    // the transcript in order, with the interrupted answer cut to what was played
    const lines = call.transcript.map((i: any) => [i.role, i.text])
    expect(lines[0]).toEqual(['agent', 'Hello, thanks for calling. How can I help?'])
    expect(lines[1]).toEqual(['user', 'what are your opening hours'])
    expect(lines[2]![0]).toBe('agent')
    expect(LONG_REPLY.startsWith(lines[2]![1])).toBe(true)
    expect(lines[2]![1].length).toBeLessThan(LONG_REPLY.length)
    expect(lines[3]).toEqual(['user', 'wait, I have another question'])
    expect(lines[4]).toEqual(['agent', 'Of course, call us back any time. Goodbye!'])
    const times = call.transcript.map((i: any) => i.timestamp)
    expect([...times].sort((a: number, b: number) => a - b)).toEqual(times)
    expect(times[1]).toBeGreaterThan(3.5)

    expect(call.metrics).toMatchObject({ inputTokens: 300, outputTokens: 72, totalTokens: 372, sttProvider: 'deepgram', ttsProvider: 'flite' })
    expect(call.metrics.turns.length).toBe(2)
    expect(call.metrics.latencyP50).toBeGreaterThan(0)
    expect(call.metrics.ttsDuration).toBeGreaterThan(2)
    expect(call.cost.llm).toBeGreaterThan(0)
    expect(call.cost.total).toBeCloseTo(call.cost.llm + call.cost.tts + call.cost.stt + call.cost.telephony, 5)

    // the phone heard the agent: real speech energy, not silence
    const heard = parseWav(readFileSync(phone.heardPath()))
    const loud = loudWindows(heard.samples, heard.sampleRate / 10, -35)
    expect(loud).toBeGreaterThan(20)

    // barge-in: in the appliance's recording the agent falls silent soon after the caller starts talking over it
    const rec = readStereoWav(`${t.dataDir}/recordings/${call.id}.wav`)
    const caller = loudness(rec.left, rec.sampleRate / 10)
    const agent = loudness(rec.right, rec.sampleRate / 10)
    const said = loudRuns(caller)
    expect(said.length, JSON.stringify(said)).toBe(2)
    const secondStart = said[1]![0]
    expect(agent.slice(secondStart - 5, secondStart).some((db) => db > -35)).toBe(true) // the agent was talking
    const quietAt = agent.findIndex((db, i) => i >= secondStart && agent.slice(i, i + 5).every((x) => x < -50))
    expect(quietAt - secondStart).toBeLessThanOrEqual(12) // within 1.2 s of the caller's first word
  } finally {
    await phone.stop()
  }
}, 60_000)
