import { llmBrain } from '../../../src/realtime/voice/brain/index.ts'
import { afterAll, describe, expect, test } from 'bun:test'
import { drain } from '../../../src/realtime/voice/base.ts'
import { type AudioFrame, concatFrames } from '../../../src/realtime/voice/audio.ts'
import { OpenAiLlm } from '../../../src/realtime/voice/llm/index.ts'
import { type EndReason, VoiceSession } from '../../../src/realtime/voice/session/index.ts'
import { DeepgramStt } from '../../../src/realtime/voice/stt/index.ts'
import { FliteTts } from '../../../src/realtime/voice/tts/index.ts'
import { DEFAULT_BARGE_IN } from '../../../src/realtime/voice/turn/index.ts'
import { SileroVad } from '../../../src/realtime/voice/vad/index.ts'
import { startFakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi } from '../../fakes/openai.ts'
import { fliteSpeech, silence } from '../../helpers/speech.ts'
import { baseAgent } from '../../unit/voice/session/timeline.ts'

const deepgram = startFakeDeepgram()
const openai = startFakeOpenAi()
afterAll(() => {
  deepgram.stop()
  openai.stop()
  FliteTts.shutdown()
})

describe('a conversation with streaming STT over the Deepgram protocol, in real time', () => {
  test('the caller barges in with words, the answer is cut where it was, and end_call hangs up', async () => {
    const long = 'We have appointments on Monday, Tuesday, Wednesday and Thursday, mornings and afternoons, and on Friday until noon.'
    openai.chat.push({ text: long }, { text: 'Okay, I will stop. Goodbye.', toolCalls: [{ name: 'end_call', arguments: '{}' }] })
    deepgram.utterances = ['When can I come in?', 'Wait, please stop.']
    const ask = fliteSpeech('When can I come in?')
    const interrupt = fliteSpeech('Wait, please stop.', 'rms')
    // the answer starts ~0.5 s after the question; the caller cuts in 2 s later
    const caller = concatFrames([silence(300, 16000), ask, silence(2500, 16000), interrupt, silence(8000, 16000)])
    const sent: { atMs: number; frame: AudioFrame }[] = []
    // the session's clock is the caller's audio: frames pushed so far, 20 ms each. A slow or busy
    // machine delays the 20 ms timer, not the audio, so the bounds below hold in the caller's time
    let frame = 0
    const now = () => frame * 20
    const ended = Promise.withResolvers<EndReason>()
    // a cold worker compiles flite's 21 MB module first; the scripted caller must not race that
    const tts = new FliteTts({ voice: 'kal16', sampleRate: 16000, workers: 1 })
    await drain(tts.synthesize('warm up'))
    const vad = await SileroVad.load()
    const session = new VoiceSession({
      engines: {
        vad,
        stt: new DeepgramStt({ baseUrl: deepgram.url, apiKey: 'dg', model: 'nova-3', language: 'en-US', endpointingMs: 300, utteranceEndMs: 1000 }),
        tts,
      },
      settings: {
        vad: { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 400 },
        endpointing: { maxFinalWaitMs: 1500, useInterimOnTimeout: true },
        bargeIn: { ...DEFAULT_BARGE_IN },
      },
      agent: { ...baseAgent, silenceTimeoutMs: 6000 },
      brain: llmBrain(new OpenAiLlm({ baseUrl: openai.url, apiKey: 'sk', model: 'gpt-test' }), { ...baseAgent, silenceTimeoutMs: 6000 }),
      hooks: { send: (frame) => sent.push({ atMs: now(), frame }), hangup: (reason) => ended.resolve(reason) },
      sampleRate: 16000,
      now,
    })
    session.start()
    const clock = setInterval(() => {
      const samples = caller.samples.subarray(frame * 320, (frame + 1) * 320)
      frame++
      session.pushAudio({ samples: samples.length === 320 ? samples : new Int16Array(320), sampleRate: 16000 })
      session.tick()
    }, 20)
    const reason = await ended.promise
    clearInterval(clock)
    // its Silero host is this test's: a later test counts the hosts an appliance left running
    await vad.close()

    expect(reason).toBe('agent_hangup')
    const r = session.report()
    expect(r.transcript.map((i) => i.role)).toEqual(['user', 'agent', 'user', 'agent'])
    expect(r.transcript[0]!.text).toBe('When can I come in?')
    const cut = r.transcript[1]!.text
    expect(long.startsWith(cut)).toBe(true)
    expect(cut.length).toBeGreaterThan(0)
    expect(cut.length).toBeLessThan(long.length * 0.6)
    expect(r.transcript[2]!.text).toBe('Wait, please stop.')
    expect(r.transcript[3]!.text).toBe('Okay, I will stop. Goodbye.')
    // the model is told only what the caller heard of the interrupted answer
    const second = openai.requests.filter((q) => q.path === '/v1/chat/completions')[1]!.body.messages
    expect(second.at(-2)).toEqual({ role: 'assistant', content: cut })
    // playback stopped soon after the caller started talking: no frame of the first answer a second
    // of the caller's audio after their first word (the decision itself is timed to the frame in the
    // timeline tests; how soon the caller hears it stop is a benchmark's figure)
    const interruptAt = (r.transcript[2]!.timestamp * 1000) as number
    const secondAnswerAt = r.transcript[3]!.timestamp * 1000
    const late = sent.filter((s) => s.atMs > interruptAt + 1000 && s.atMs < secondAnswerAt - 20)
    expect(late.length).toBe(0)
    expect(deepgram.connections.length).toBeGreaterThanOrEqual(1)
  }, 40_000)
})
