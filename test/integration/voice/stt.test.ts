import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type AudioFrame, concatFrames } from '../../../src/realtime/voice/audio.ts'
import { drain, type StreamEvent } from '../../../src/realtime/voice/base.ts'
import { DeepgramStt, OpenAiStt, type SttEvent } from '../../../src/realtime/voice/stt/index.ts'
import { MAX_PROMPT_CHARS, promptOf } from '../../../src/realtime/voice/stt/openai.ts'
import { startFakeDeepgram } from '../../fakes/deepgram.ts'
import { startFakeOpenAi } from '../../fakes/openai.ts'
import { fliteSpeech, frames20ms, silence } from '../../helpers/speech.ts'

const deepgram = startFakeDeepgram()
const openai = startFakeOpenAi()
afterAll(() => {
  deepgram.stop()
  openai.stop()
})

let first: AudioFrame
let second: AudioFrame
beforeAll(() => {
  first = fliteSpeech('I would like to change my booking.')
  second = fliteSpeech('Friday at noon.')
})

const conn = { maxRetries: 2, timeoutMs: 3000, retryIntervalMs: 1 }
const dg = () =>
  new DeepgramStt({ baseUrl: deepgram.url, apiKey: 'dg-key', model: 'nova-3', language: 'en-US', endpointingMs: 300, utteranceEndMs: 1000, conn })
const finals = (events: StreamEvent<SttEvent>[]) => events.flatMap((e) => (e.type === 'final' ? [e] : []))

describe('Deepgram streaming STT adapter', () => {
  test('streams linear16 audio and turns Results into interims, end-of-turn finals, utterance ends and usage', async () => {
    deepgram.utterances = ['I would like to change my booking.', 'Friday at noon.']
    const audio = concatFrames([silence(400, 16000), first, silence(1500, 16000), second, silence(1500, 16000)])
    const stream = dg().stream()
    for (const f of frames20ms(audio)) stream.push(f)
    stream.end()
    const { events, errors } = await drain(stream)
    expect(errors).toEqual([])
    expect(finals(events).map((f) => [f.text, f.endOfTurn])).toEqual([
      ['I would like to change my booking.', true],
      ['Friday at noon.', true],
    ])
    expect(events.filter((e) => e.type === 'speech_started').length).toBe(2)
    expect(events.some((e) => e.type === 'interim')).toBe(true)
    expect(events.some((e) => e.type === 'utterance_end')).toBe(true)
    const f0 = finals(events)[0]!
    expect(f0.startMs).toBeGreaterThanOrEqual(400)
    expect(f0.endMs).toBeLessThanOrEqual(400 + (first.samples.length * 1000) / 16000 + 20)
    const usage = events.find((e) => e.type === 'usage')
    expect(usage).toEqual({ type: 'usage', audioMs: Math.round((audio.samples.length * 1000) / 16000) })
    const c = deepgram.connections.at(-1)!
    expect(c.authorization).toBe('Token dg-key')
    expect(Object.fromEntries(c.query)).toMatchObject({ encoding: 'linear16', sample_rate: '16000', channels: '1', model: 'nova-3', endpointing: '300', interim_results: 'true' })
  })

  test("the agent's vocabulary reaches Nova-3 as key terms, phrases whole", async () => {
    deepgram.utterances = ['Friday at noon.']
    const stream = dg().stream({ vocabulary: ['Zorblax', 'Quentin Street'] })
    for (const f of frames20ms(concatFrames([silence(200, 16000), second, silence(1200, 16000)]))) stream.push(f)
    stream.end()
    const { errors } = await drain(stream)
    expect(errors).toEqual([])
    const q = deepgram.connections.at(-1)!.query
    expect(q.getAll('keyterm')).toEqual(['Zorblax', 'Quentin Street'])
    expect(q.getAll('keywords')).toEqual([])
  })

  test("the agent's vocabulary reaches a model before Nova-3 as boosted single keywords", async () => {
    deepgram.utterances = ['Friday at noon.']
    const nova2 = new DeepgramStt({ baseUrl: deepgram.url, apiKey: 'dg-key', model: 'nova-2-phonecall', language: 'en-US', endpointingMs: 300, utteranceEndMs: 1000, conn })
    const stream = nova2.stream({ vocabulary: ['Zorblax', 'Quentin Street'] })
    for (const f of frames20ms(concatFrames([silence(200, 16000), second, silence(1200, 16000)]))) stream.push(f)
    stream.end()
    const { errors } = await drain(stream)
    expect(errors).toEqual([])
    const q = deepgram.connections.at(-1)!.query
    expect(q.getAll('keywords')).toEqual(['Zorblax:2', 'Quentin:2', 'Street:2'])
    expect(q.getAll('keyterm')).toEqual([])
  })

  for (const code of [1011, 1000]) {
    test(`reconnects after the provider closes the socket (${code}) and transcribes what comes next`, async () => {
      deepgram.dropCode = code
      deepgram.utterances = ['lost with the connection', 'Friday at noon.']
      deepgram.dropNextAfterMs = 1000
      const before = deepgram.connections.length
      const stream = dg().stream()
      for (const f of frames20ms(concatFrames([silence(400, 16000), first]))) stream.push(f)
      const events: StreamEvent<SttEvent>[] = []
      for await (const ev of stream) {
        events.push(ev)
        if (ev.type === 'error') {
          for (const f of frames20ms(concatFrames([silence(300, 16000), second, silence(1500, 16000)]))) stream.push(f)
          stream.end()
        }
      }
      const errors = events.flatMap((e) => (e.type === 'error' ? [e] : []))
      expect(errors.map((e) => [e.error.kind, e.willRetry])).toEqual([['connection', true]])
      expect(finals(events).map((f) => f.text)).toEqual(['Friday at noon.'])
      expect(deepgram.connections.length - before).toBe(2)
      deepgram.dropCode = 1011
    })
  }

  test('skips a malformed message from the provider and keeps transcribing', async () => {
    deepgram.utterances = ['Friday at noon.']
    deepgram.garbageNext = '{"type":"Results", this is not json'
    const stream = dg().stream()
    for (const f of frames20ms(concatFrames([silence(200, 16000), second, silence(800, 16000)]))) stream.push(f)
    stream.end()
    const { events, errors } = await drain(stream)
    expect(errors).toEqual([])
    expect(finals(events).map((f) => f.text)).toEqual(['Friday at noon.'])
    expect(stream.malformedMessages).toBe(1)
  })
})

describe('OpenAI transcription adapter', () => {
  const stt = () => new OpenAiStt({ baseUrl: openai.url, apiKey: 'sk', model: 'gpt-4o-transcribe', language: 'en', conn })

  test('sends one utterance as a WAV file and returns one end-of-turn final with the audio billed', async () => {
    openai.transcripts.push('Friday at noon.')
    const stream = stt().stream()
    for (const f of frames20ms(second)) stream.push(f)
    stream.end()
    const { events, errors } = await drain(stream)
    expect(errors).toEqual([])
    const durationMs = Math.round((second.samples.length * 1000) / 16000)
    expect(events).toEqual([
      { type: 'final', text: 'Friday at noon.', confidence: 1, startMs: 0, endMs: durationMs, endOfTurn: true },
      { type: 'usage', audioMs: durationMs },
    ])
    const req = openai.requests.at(-1)!
    expect(req.path).toBe('/v1/audio/transcriptions')
    expect(req.body).toEqual({ model: 'gpt-4o-transcribe', language: 'en', fileBytes: 44 + second.samples.length * 2 })
  })

  test("the agent's vocabulary reaches the transcription as its prompt", async () => {
    openai.transcripts.push('Zorblax on Quentin Street.')
    const stream = stt().stream({ vocabulary: ['Zorblax', 'Quentin Street'] })
    for (const f of frames20ms(second)) stream.push(f)
    stream.end()
    const { errors } = await drain(stream)
    expect(errors).toEqual([])
    expect(openai.requests.at(-1)!.body.prompt).toBe('Vocabulary: Zorblax, Quentin Street.')
  })

  test('a vocabulary longer than the prompt holds is cut at a whole entry', () => {
    const prompt = promptOf(Array.from({ length: 300 }, (_, i) => `term${i}`))
    expect(prompt.length).toBeLessThanOrEqual(MAX_PROMPT_CHARS)
    expect(prompt).toMatch(/term\d+\.$/)
    expect(promptOf([])).toBe('')
  })

  test('a failed request is retried with the same audio', async () => {
    openai.transcripts.push({ failStatus: 502 }, 'again')
    const before = openai.requests.length
    const stream = stt().stream()
    for (const f of frames20ms(second)) stream.push(f)
    stream.end()
    const { events, errors } = await drain(stream)
    expect(errors.map((e) => [e.error.status, e.willRetry])).toEqual([[502, true]])
    expect(events[0]).toMatchObject({ type: 'final', text: 'again' })
    const sent = openai.requests.slice(before).map((r) => r.body.fileBytes)
    expect(sent).toEqual([44 + second.samples.length * 2, 44 + second.samples.length * 2])
  })
})
