import { afterAll, describe, expect, test } from 'bun:test'
import { type AudioFrame, concatFrames, rmsDbfs } from '../../../src/realtime/voice/audio.ts'
import { drain } from '../../../src/realtime/voice/base.ts'
import { ElevenLabsTts, FliteTts, OpenAiTts, type TtsEvent } from '../../../src/realtime/voice/tts/index.ts'
import { createVadStream, SileroVad } from '../../../src/realtime/voice/vad/index.ts'
import { startFakeElevenLabs } from '../../fakes/elevenlabs.ts'
import { startFakeOpenAi } from '../../fakes/openai.ts'
import { speechMsFor } from '../../fakes/tone.ts'

const eleven = startFakeElevenLabs()
const openai = startFakeOpenAi()
afterAll(() => {
  eleven.stop()
  openai.stop()
  FliteTts.shutdown()
})

const conn = { maxRetries: 1, timeoutMs: 2000, retryIntervalMs: 1 }
const audioOf = (events: TtsEvent[]): AudioFrame => concatFrames(events.flatMap((e) => (e.type === 'audio' ? [e.frame] : [])))
const ms = (a: AudioFrame) => (a.samples.length * 1000) / a.sampleRate

describe('flite TTS (offline, WASI in worker threads)', () => {
  test('speaks a sentence as 16 kHz audio that Silero hears as speech', async () => {
    const tts = new FliteTts({ voice: 'kal16', sampleRate: 16000, workers: 1 })
    const text = 'Thank you for calling. How can I help you today?'
    const { events, errors } = await drain(tts.synthesize(text))
    expect(errors).toEqual([])
    const audio = audioOf(events)
    expect(ms(audio)).toBeGreaterThan(2000)
    expect(ms(audio)).toBeLessThan(6000)
    expect(rmsDbfs(audio.samples)).toBeGreaterThan(-35)
    expect(events.at(-1)).toEqual({ type: 'done', characters: text.length, audioMs: ms(audio) })

    const vad = createVadStream(await SileroVad.load(), { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 300 })
    for (let i = 0; i < audio.samples.length; i += 320) vad.push({ samples: audio.samples.slice(i, i + 320), sampleRate: 16000 })
    vad.end()
    const { events: vadEvents } = await drain(vad)
    expect(vadEvents.filter((e) => e.type === 'speech_start').length).toBeGreaterThanOrEqual(1)
  })

  test('resamples to an 8 kHz call without changing the duration', async () => {
    const text = 'Your appointment is confirmed.'
    const wide = audioOf((await drain(new FliteTts({ voice: 'kal16', sampleRate: 16000, workers: 1 }).synthesize(text))).events)
    const narrow = audioOf((await drain(new FliteTts({ voice: 'kal16', sampleRate: 8000, workers: 1 }).synthesize(text))).events)
    expect(narrow.sampleRate).toBe(8000)
    expect(Math.abs(ms(narrow) - ms(wide))).toBeLessThan(1)
    expect(Math.abs(rmsDbfs(narrow.samples) - rmsDbfs(wide.samples))).toBeLessThan(3)
  })

  test('runs syntheses for several calls at once on a pool of two workers', async () => {
    const tts = new FliteTts({ voice: 'kal16', sampleRate: 8000, workers: 2 })
    const texts = ['One.', 'Two is here.', 'Three comes next.', 'Four is the last one.']
    const results = await Promise.all(texts.map((t) => drain(tts.synthesize(t))))
    const lengths = results.map((r) => ms(audioOf(r.events)))
    expect(lengths.every((l) => l > 200)).toBe(true)
    expect(lengths[3]!).toBeGreaterThan(lengths[0]!)
  })

  test('rejects empty text and unknown voices before any work starts', () => {
    const tts = new FliteTts({ voice: 'kal16', sampleRate: 16000, workers: 1 })
    expect(() => tts.synthesize('  \n ')).toThrow(/empty/)
    expect(() => new FliteTts({ voice: 'nope' as 'kal16', sampleRate: 16000, workers: 1 })).toThrow(/unknown flite voice/)
  })
})

describe('ElevenLabs streaming TTS adapter', () => {
  const tts = () => new ElevenLabsTts({ baseUrl: eleven.url, apiKey: 'xi-key', voiceId: 'voice 1', modelId: 'eleven_flash_v2_5', sampleRate: 8000, conn })

  test('plays the first chunk before the provider has finished sending', async () => {
    eleven.delays = { firstMs: 5, chunkMs: 15 }
    const stream = tts().synthesize('Hello from the cloud voice.')
    let firstAudioAt = 0
    let doneAt = 0
    const frames: AudioFrame[] = []
    for await (const ev of stream) {
      if (ev.type === 'audio') {
        firstAudioAt ||= performance.now()
        frames.push(ev.frame)
      } else if (ev.type === 'done') doneAt = performance.now()
    }
    eleven.delays = { firstMs: 0, chunkMs: 0 }
    expect(frames.length).toBeGreaterThan(3)
    expect(doneAt - firstAudioAt).toBeGreaterThan(30)
    // 16 kHz odd-sized chunks resampled to 8 kHz: no sample lost at chunk borders
    expect(Math.abs(ms(concatFrames(frames)) - speechMsFor('Hello from the cloud voice.'))).toBeLessThan(3)
    const req = eleven.requests.at(-1)!
    expect(req.path).toBe('/v1/text-to-speech/voice%201/stream')
    expect(req.query.get('output_format')).toBe('pcm_16000')
    expect(req.headers.get('xi-api-key')).toBe('xi-key')
    expect(req.body).toEqual({ text: 'Hello from the cloud voice.', model_id: 'eleven_flash_v2_5' })
  })

  test('retries a 500 but not a 401', async () => {
    eleven.plan.push({ failStatus: 500 })
    const ok = await drain(tts().synthesize('retry me'))
    expect(ok.errors.map((e) => e.willRetry)).toEqual([true])
    expect(ok.events.at(-1)!.type).toBe('done')
    eleven.plan.push({ failStatus: 401 })
    const bad = await drain(tts().synthesize('unauthorised'))
    expect(bad.events).toEqual([])
    expect(bad.errors.map((e) => [e.error.status, e.willRetry])).toEqual([[401, false]])
  })
})

describe('OpenAI speech TTS adapter', () => {
  test('asks for raw pcm and resamples 24 kHz to the call rate', async () => {
    const tts = new OpenAiTts({ baseUrl: openai.url, apiKey: 'sk', model: 'gpt-4o-mini-tts', voice: 'alloy', sampleRate: 16000, conn })
    const text = 'Let me check that for you.'
    const { events, errors } = await drain(tts.synthesize(text))
    expect(errors).toEqual([])
    const audio = audioOf(events)
    expect(audio.sampleRate).toBe(16000)
    expect(Math.abs(ms(audio) - speechMsFor(text))).toBeLessThan(3)
    expect(openai.requests.at(-1)!.body).toEqual({ model: 'gpt-4o-mini-tts', input: text, voice: 'alloy', response_format: 'pcm' })
  })
})
