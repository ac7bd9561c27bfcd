import { afterAll, beforeEach, describe, expect, test } from 'bun:test'
import type { AudioFrame } from '../../../src/realtime/voice/audio.ts'
import { OpenAiLlm } from '../../../src/realtime/voice/llm/index.ts'
import { streamReply } from '../../../src/realtime/voice/reply.ts'
import { FliteTts } from '../../../src/realtime/voice/tts/index.ts'
import { SpeechHandle } from '../../../src/realtime/voice/turn/index.ts'
import { startFakeOpenAi } from '../../fakes/openai.ts'

const fake = startFakeOpenAi()
afterAll(() => {
  fake.stop()
  FliteTts.shutdown()
})
beforeEach(() => {
  fake.chat.length = 0
  fake.delays = { firstMs: 0, chunkMs: 0 }
})

const llm = new OpenAiLlm({ baseUrl: fake.url, apiKey: 'sk', model: 'gpt-test', conn: { maxRetries: 0, timeoutMs: 3000, retryIntervalMs: 1 } })
const tts = new FliteTts({ voice: 'kal16', sampleRate: 8000, workers: 1 })
const request = { messages: [{ role: 'user' as const, content: 'hours?' }] }

describe('streaming a reply from the LLM through TTS sentence by sentence', () => {
  test('the first sentence is heard before the model has finished writing', async () => {
    fake.chat.push({ text: 'We open at nine. We close at five on weekdays. On Saturdays we close at noon.', usage: { prompt: 50, completion: 20 } })
    fake.delays = { firstMs: 0, chunkMs: 25 }
    const speech = new SpeechHandle()
    const frames: AudioFrame[] = []
    const r = await streamReply({ llm, request, tts, speech, onAudio: (f) => frames.push(f) })
    expect(r.outcome).toBe('completed')
    expect(r.firstAudioAt!).toBeLessThan(r.llmDoneAt!)
    expect(r.llmTtftMs).toBeGreaterThanOrEqual(0)
    expect(r.ttsTtfbMs).toBeGreaterThan(0)
    expect([r.inputTokens, r.outputTokens]).toEqual([50, 20])
    expect(r.ttsCharacters).toBe('We open at nine.We close at five on weekdays.On Saturdays we close at noon.'.length)
    const sentMs = frames.reduce((n, f) => n + (f.samples.length * 1000) / f.sampleRate, 0)
    expect(Math.abs(sentMs - r.ttsAudioMs)).toBeLessThan(1)
    expect(speech.queuedMs).toBeCloseTo(r.ttsAudioMs, 3)
    speech.setPlayedMs(speech.queuedMs)
    expect(await speech.done).toBe('completed')
    expect(speech.playedText).toBe('We open at nine. We close at five on weekdays. On Saturdays we close at noon.')
  })

  test('an interruption stops the model and the synthesis; the transcript keeps what was played', async () => {
    fake.chat.push({ text: 'First sentence here. ' + 'Then a very long story follows that nobody wants to hear. '.repeat(12) })
    fake.delays = { firstMs: 0, chunkMs: 10 }
    const speech = new SpeechHandle()
    let audioCalls = 0
    const r = await streamReply({
      llm,
      request,
      tts,
      speech,
      onAudio: () => {
        audioCalls++
        // flite hands over 200 ms pieces; the caller speaks up 600 ms into the first sentence
        if (audioCalls === 3) {
          speech.setPlayedMs(600)
          speech.interrupt()
        }
      },
    })
    expect(r.outcome).toBe('interrupted')
    expect(audioCalls).toBe(3)
    expect(r.text.length).toBeLessThan(200)
    expect(speech.played).toBe(600)
    expect(['First', 'First sentence']).toContain(speech.playedText)
  })

  test('tool calls come back with whatever was said before them', async () => {
    fake.chat.push({ text: 'Let me transfer you.', toolCalls: [{ name: 'transfer_call', arguments: '{"to":"sales"}' }] })
    const speech = new SpeechHandle()
    const r = await streamReply({ llm, request, tts, speech, onAudio: () => {} })
    expect(r.outcome).toBe('completed')
    expect(r.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['transfer_call', '{"to":"sales"}']])
    expect(speech.fullText).toBe('Let me transfer you.')
  })

  test('a provider failure ends the reply as failed, with the error and no audio', async () => {
    fake.chat.push({ failStatus: 401 })
    const frames: AudioFrame[] = []
    const r = await streamReply({ llm, request, tts, speech: new SpeechHandle(), onAudio: (f) => frames.push(f) })
    expect(r.outcome).toBe('failed')
    expect(r.error?.status).toBe(401)
    expect(frames).toEqual([])
  })
})
