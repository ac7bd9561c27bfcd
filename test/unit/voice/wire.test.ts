import { describe, expect, test } from 'bun:test'
import { parseWav, rmsDbfs, WavError, writeWav } from '../../../src/realtime/voice/audio.ts'
import { SseParser } from '../../../src/realtime/voice/llm/index.ts'
import { Resampler, resample } from '../../../src/realtime/voice/resample.ts'

describe('SSE parser', () => {
  test('joins events split across arbitrary chunk borders, including inside CRLF', () => {
    const text = 'event: message_start\r\ndata: {"a":1}\r\n\r\n: comment\r\ndata: line one\r\ndata: line two\r\n\r\n'
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser()
      const got = [...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut))]
      expect(got).toEqual([
        { event: 'message_start', data: '{"a":1}' },
        { event: 'message', data: 'line one\nline two' },
      ])
    }
  })

  test('accepts fields without a space after the colon and ignores unknown fields', () => {
    expect(new SseParser().feed('data:[DONE]\nretry: 100\nfoo: bar\n\n')).toEqual([{ event: 'message', data: '[DONE]' }])
  })

  test('a blank line with no data dispatches nothing', () => {
    expect(new SseParser().feed('event: ping\n\n\n\n')).toEqual([])
  })
})

describe('WAV reading', () => {
  test('round-trips what it writes', () => {
    const samples = Int16Array.from([0, 1000, -1000, 32767, -32768])
    expect(parseWav(writeWav({ samples, sampleRate: 8000 }))).toEqual({ samples, sampleRate: 8000 })
  })

  const bad: [string, Uint8Array, RegExp][] = [
    ['an empty file', new Uint8Array(0), /not a RIFF/],
    ['random bytes', Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 255), /not a RIFF/],
    ['a header with no data chunk', writeWav({ samples: new Int16Array(0), sampleRate: 8000 }).slice(0, 36), /no data chunk/],
  ]
  for (const [name, bytes, message] of bad) {
    test(`rejects ${name} with a WavError`, () => {
      expect(() => parseWav(bytes)).toThrow(WavError)
      expect(() => parseWav(bytes)).toThrow(message)
    })
  }
  test('says why a stereo file is refused', () => {
    const wav = writeWav({ samples: new Int16Array(8), sampleRate: 8000 })
    new DataView(wav.buffer).setUint16(22, 2, true)
    expect(() => parseWav(wav)).toThrow(/16-bit mono/)
  })
})

describe('resampler', () => {
  const sine = (hz: number, rate: number, ms: number) =>
    Int16Array.from({ length: (rate * ms) / 1000 }, (_, i) => Math.round(10000 * Math.sin((2 * Math.PI * hz * i) / rate)))

  test('keeps a tone in the pass band at its level when converting 24 kHz to 8 kHz', () => {
    const out = resample(sine(1000, 24000, 500), 24000, 8000)
    expect(out.length).toBe(4000)
    expect(Math.abs(rmsDbfs(out.subarray(200, 3800)) - rmsDbfs(sine(1000, 8000, 500)))).toBeLessThan(0.5)
  })

  test('removes a tone above the new Nyquist instead of folding it back', () => {
    const out = resample(sine(6000, 24000, 500), 24000, 8000)
    expect(rmsDbfs(out.subarray(200, 3800))).toBeLessThan(-40)
  })

  test('gives the same samples whether fed whole or in 20 ms chunks', () => {
    const input = sine(440, 8000, 400)
    const whole = new Resampler(8000, 16000).push(input)
    const r = new Resampler(8000, 16000)
    const parts: number[] = []
    for (let i = 0; i < input.length; i += 160) parts.push(...r.push(input.subarray(i, i + 160)))
    expect([...Int16Array.from(parts)]).toEqual([...whole])
  })

  test('rejects a zero sample rate', () => expect(() => new Resampler(0, 8000)).toThrow(RangeError))

  for (const engine of ['speex', 'polyphase'] as const) {
    test(`the one-shot conversion lines up with its input (${engine}): an impulse lands where its time says`, () => {
      for (const [from, to] of [[24000, 8000], [16000, 8000], [8000, 16000]] as const) {
        const x = new Int16Array(from / 10)
        x[from / 20] = 20000
        const y = resample(x, from, to, engine)
        expect(y.length).toBe(to / 10)
        let peak = 0
        for (let i = 1; i < y.length; i++) if (Math.abs(y[i]!) > Math.abs(y[peak]!)) peak = i
        expect(Math.abs(peak - to / 20)).toBeLessThanOrEqual(1)
      }
    })
  }
})
