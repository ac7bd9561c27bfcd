import { llmBrain } from '../../../src/realtime/voice/brain/index.ts'
import { afterAll, describe, expect, test } from 'bun:test'
import { drain } from '../../../src/realtime/voice/base.ts'
import { type AudioFrame, concatFrames, rmsDbfs } from '../../../src/realtime/voice/audio.ts'
import { OpenAiLlm } from '../../../src/realtime/voice/llm/index.ts'
import { type EndReason, VoiceSession } from '../../../src/realtime/voice/session/index.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'
import { FliteTts } from '../../../src/realtime/voice/tts/index.ts'
import { DEFAULT_BARGE_IN } from '../../../src/realtime/voice/turn/index.ts'
import { SileroVad } from '../../../src/realtime/voice/vad/index.ts'
import { startFakeOpenAi } from '../../fakes/openai.ts'
import { fliteSpeech, silence } from '../../helpers/speech.ts'
import { baseAgent } from '../../unit/voice/session/timeline.ts'

const fake = startFakeOpenAi()
const stt = new PocketsphinxStt({ mode: 'dictation' })
afterAll(() => {
  fake.stop()
  stt.close()
  FliteTts.shutdown()
})

describe('an offline conversation with the real engines, in real time', () => {
  test('Silero hears the caller, pocketsphinx transcribes, the LLM answers and ends the call, flite speaks', async () => {
    fake.chat.push({ text: 'We open at nine in the morning.', toolCalls: [{ name: 'end_call', arguments: '{}' }] })
    const caller = concatFrames([silence(300, 16000), fliteSpeech('what time do you open tomorrow'), silence(4000, 16000)])
    const sent: AudioFrame[] = []
    let frame = 0
    const t0 = performance.now()
    const ended = Promise.withResolvers<EndReason>()
    // a cold worker compiles flite's 21 MB module first; the scripted caller must not race that
    const tts = new FliteTts({ voice: 'kal16', sampleRate: 16000, workers: 1 })
    await drain(tts.synthesize('warm up'))
    const session = new VoiceSession({
      engines: {
        vad: await SileroVad.load(),
        stt,
        tts,
      },
      brain: llmBrain(new OpenAiLlm({ baseUrl: fake.url, apiKey: 'sk', model: 'gpt-test' }), { ...baseAgent, goodbyeMessage: 'Goodbye.', silenceTimeoutMs: 6000 }),
      settings: {
        vad: { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 400 },
        endpointing: { maxFinalWaitMs: 1500, useInterimOnTimeout: true },
        bargeIn: { ...DEFAULT_BARGE_IN },
      },
      agent: { ...baseAgent, goodbyeMessage: 'Goodbye.', silenceTimeoutMs: 6000 },
      hooks: { send: (f) => sent.push(f), hangup: (reason) => ended.resolve(reason) },
      sampleRate: 16000,
      now: () => performance.now() - t0,
    })
    session.start()
    // the media layer's 20 ms clock: one caller frame in, one tick
    const clock = setInterval(() => {
      const samples = caller.samples.subarray(frame * 320, (frame + 1) * 320)
      frame++
      session.pushAudio({ samples: samples.length === 320 ? samples : new Int16Array(320), sampleRate: 16000 })
      session.tick()
    }, 20)
    const reason = await ended.promise
    clearInterval(clock)

    expect(reason).toBe('agent_hangup')
    const r = session.report()
    // the model said its goodbye itself, so end_call adds no line of its own
    expect(r.transcript.map((i) => i.role)).toEqual(['user', 'agent'])
    expect(r.transcript[0]!.text).toBe('what time do you open tomorrow')
    expect(r.transcript[1]!.text).toBe('We open at nine in the morning.')
    expect(fake.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'what time do you open tomorrow' })
    const agentAudio = concatFrames(sent)
    expect(agentAudio.samples.length / 16).toBeGreaterThan(1500)
    expect(rmsDbfs(agentAudio.samples)).toBeGreaterThan(-40)
    const turn = r.turns[0]!
    // words that do not trail off are a complete answer: the normal preset waits 300 ms of silence
    expect(turn.vadHangoverMs).toBeGreaterThanOrEqual(300)
    expect(turn.endpointingMs).toBeGreaterThanOrEqual(turn.vadHangoverMs!)
    expect(turn.endpointingMs! + turn.responseMs! + turn.leadingSilenceMs!).toBeCloseTo(turn.voiceToVoiceMs!, 6)
    expect(r.usage.stt[0]!.provider).toBe('pocketsphinx-stt')
    expect(r.usage.tts.reduce((n, u) => n + u.characters, 0)).toBe('We open at nine in the morning.'.length)
  }, 30_000)
})
