// pocketsphinx decodes an utterance while the caller speaks: at end() only the end of the
// utterance remains, words come as interims on the way, and concurrent callers each hold a decoder.
import { afterAll, describe, expect, test } from 'bun:test'
import type { AudioFrame } from '../../../src/realtime/voice/audio.ts'
import { drain, type StreamEvent } from '../../../src/realtime/voice/base.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { PocketsphinxStt, type SttEvent } from '../../../src/realtime/voice/stt/index.ts'
import type { PocketsphinxStream } from '../../../src/realtime/voice/stt/pocketsphinx.ts'
import { BandMeter } from '../../../src/realtime/voice/stt/pocketsphinx-band.ts'
import { fliteSpeech, frames20ms, noise, wordErrors } from '../../helpers/speech.ts'
import { until } from '../../helpers/until.ts'

const engines: PocketsphinxStt[] = []
afterAll(() => engines.forEach((e) => e.close()))
const dictation = (maxDecoders?: number, threads = 1) => {
  const e = new PocketsphinxStt({ mode: 'dictation', maxDecoders, threads })
  engines.push(e)
  return e
}

const BOOKING = 'i would like to book a table for two people'
/**
 * The one-pass search (STREAMING_SEARCH) hears "book a" as "a buffet" in this voice; the rest
 * of the sentence must be right: at most two words of nine wrong.
 */
const heardBooking = (text: string) => expect(wordErrors(BOOKING, text)).toBeLessThanOrEqual(2)
const CALL_BACK = 'please call me back tomorrow morning'
const ACCOUNT = 'my account number is not working'
const WEATHER = 'the weather is nice today'
const speech = (text: string) => fliteSpeech(text)

/** A G.711 call as the appliance hands it to STT: the phone band, upsampled to 16 kHz. */
const phoneLine = (a: AudioFrame): AudioFrame => ({ samples: resample(resample(a.samples, a.sampleRate, 8000), 8000, 16000), sampleRate: 16000 })

/** 300 ms of line noise, then the words: what the listener's pre-roll holds when the caller starts. */
function afterLineNoise(a: AudioFrame): AudioFrame {
  const samples = new Int16Array(4800 + a.samples.length)
  samples.set(noise(300, 16000, 60).samples)
  samples.set(a.samples, 4800)
  return { samples, sampleRate: 16000 }
}

/** Caller audio in ms, as the stream counts it. */
const ms = (a: AudioFrame) => (a.samples.length * 1000) / a.sampleRate
const joined = (parts: AudioFrame[]): AudioFrame => {
  const samples = new Int16Array(parts.reduce((n, p) => n + p.samples.length, 0))
  parts.reduce((o, p) => (samples.set(p.samples, o), o + p.samples.length), 0)
  return { samples, sampleRate: parts[0]!.sampleRate }
}
const pushAll = (stream: PocketsphinxStream, audio: AudioFrame) => {
  for (const f of frames20ms(audio)) stream.push(f)
}
const finalText = (events: StreamEvent<SttEvent>[]) => events.flatMap((e) => (e.type === 'final' ? [e.text] : [])).join(' ')

/** Reads a stream's events as they come, so a test can look at them before end(). */
function collect(stream: PocketsphinxStream): { events: StreamEvent<SttEvent>[]; done: Promise<void> } {
  const events: StreamEvent<SttEvent>[] = []
  const done = (async () => {
    for await (const e of stream) events.push(e)
  })()
  return { events, done }
}

// a busy two-core machine decodes at a fraction of real time: leave it ten times what it needs
const CATCH_UP_MS = 20_000

describe('pocketsphinx decodes while the caller speaks', () => {
  test('decodes while audio arrives: at end() only the end of the utterance remains', async () => {
    const stream = dictation().stream()
    const audio = speech(BOOKING)
    pushAll(stream, audio)
    await until(() => stream.decodedMs >= ms(audio) - 0.5, CATCH_UP_MS, 'the decoder to catch up with the audio pushed')
    stream.end()
    const { events, errors } = await drain(stream)
    expect(errors).toEqual([])
    heardBooking(finalText(events))
    expect(stream.framesAfterEnd).toBe(0)
    expect(events.at(-1)).toEqual({ type: 'usage', audioMs: Math.round(ms(audio)) })
  })

  test('words arrive as interims before end() for a multi-word dictation utterance', async () => {
    const stream = dictation().stream()
    const { events, done } = collect(stream)
    pushAll(stream, speech(BOOKING))
    const interims = () => events.flatMap((e) => (e.type === 'interim' ? [e.text] : []))
    await until(() => interims().some((t) => t.split(' ').length >= 3), CATCH_UP_MS, 'interims of several words')
    const beforeEnd = interims()
    stream.end()
    await done
    // the partial words lead into the sentence: it starts the same way
    expect(beforeEnd.at(-1)!.startsWith('i would')).toBe(true)
    // an interim comes only when the words changed
    expect(beforeEnd.every((t, i) => i === 0 || t !== beforeEnd[i - 1])).toBe(true)
    heardBooking(finalText(events))
  })

  test('two callers at once each get their own words', async () => {
    const stt = dictation()
    const a = stt.stream()
    const b = stt.stream()
    const frames = [[...frames20ms(speech(BOOKING))], [...frames20ms(speech(CALL_BACK))]] as const
    // the two callers' frames arrive interleaved, as two calls' audio does
    for (let i = 0; i < Math.max(frames[0].length, frames[1].length); i++) {
      if (frames[0][i]) a.push(frames[0][i]!)
      if (frames[1][i]) b.push(frames[1][i]!)
    }
    a.end()
    b.end()
    const [ra, rb] = await Promise.all([drain(a), drain(b)])
    expect([ra.errors, rb.errors]).toEqual([[], []])
    heardBooking(finalText(ra.events))
    expect(finalText(rb.events)).toBe(CALL_BACK)
  })

  test('a caller who finds no free decoder waits for one, keeps its audio in order and gets its words', async () => {
    const stt = dictation(1)
    const first = stt.stream()
    const second = stt.stream()
    const firstAudio = speech(ACCOUNT)
    pushAll(first, firstAudio)
    await until(() => first.decodedMs > 0, CATCH_UP_MS, 'the first caller to hold the only decoder')
    const secondAudio = speech(CALL_BACK)
    pushAll(second, secondAudio)
    await until(() => first.decodedMs >= ms(firstAudio) - 0.5, CATCH_UP_MS, 'the first caller to be decoded up to date')
    // the only decoder is the first caller's until its utterance ends
    expect(second.decodedMs).toBe(0)
    first.end()
    expect(finalText((await drain(first)).events)).toBe(ACCOUNT)
    second.end()
    const { events, errors } = await drain(second)
    expect(errors).toEqual([])
    expect(finalText(events)).toBe(CALL_BACK)
    expect(second.decodedMs).toBeCloseTo(ms(secondAudio), 3)
  })

  test('with two decoder threads, a second caller is decoded on the other while the first holds its only decoder', async () => {
    const stt = dictation(1, 2)
    const first = stt.stream()
    const second = stt.stream()
    const firstAudio = speech(ACCOUNT)
    const secondAudio = speech(CALL_BACK)
    pushAll(first, firstAudio)
    pushAll(second, secondAudio)
    await until(() => first.decodedMs >= ms(firstAudio) - 0.5 && second.decodedMs >= ms(secondAudio) - 0.5, CATCH_UP_MS, 'both callers to be decoded up to date')
    first.end()
    second.end()
    expect(finalText((await drain(first)).events)).toBe(ACCOUNT)
    expect(finalText((await drain(second)).events)).toBe(CALL_BACK)
  })

  test('a caller who stopped talking is decoded ahead of the backlog of callers still talking', async () => {
    const stt = dictation(6, 1)
    const long = joined([BOOKING, CALL_BACK, ACCOUNT, WEATHER, BOOKING, CALL_BACK].map(speech))
    const talking = [stt.stream(), stt.stream(), stt.stream()]
    // three callers' audio reaches the only thread faster than it decodes: a backlog forms
    for (const s of talking) pushAll(s, long)
    await until(() => talking.every((s) => s.decodedMs > 0), CATCH_UP_MS, 'the backlog to reach the thread')
    const waiting = stt.stream()
    pushAll(waiting, speech(WEATHER))
    waiting.end()
    const { events, errors } = await drain(waiting)
    expect(errors).toEqual([])
    expect(finalText(events)).toBe(WEATHER)
    // its final came while the others' audio was still being decoded
    expect(talking.map((s) => s.decodedMs < ms(long) - 1000)).toEqual([true, true, true])
    for (const s of talking) s.close()
  })

  test('a caller who hangs up mid-utterance gives the decoder back to the next one', async () => {
    const stt = dictation(1)
    const leaving = stt.stream()
    const audio = speech(BOOKING)
    pushAll(leaving, audio)
    await until(() => leaving.decodedMs > 0, CATCH_UP_MS, 'the first caller to hold the only decoder')
    leaving.close()
    const next = stt.stream()
    pushAll(next, speech(ACCOUNT))
    next.end()
    const { events, errors } = await drain(next)
    expect(errors).toEqual([])
    expect(finalText(events)).toBe(ACCOUNT)
  })

  test('callers on a phone line (upsampled to 16 kHz) and on a wideband line are both transcribed after the line noise', async () => {
    const stt = dictation()
    for (const [text, line] of [
      [WEATHER, phoneLine],
      [BOOKING, (a: AudioFrame) => a],
    ] as const) {
      const stream = stt.stream()
      pushAll(stream, line(afterLineNoise(speech(text))))
      stream.end()
      const { events, errors } = await drain(stream)
      expect(errors).toEqual([])
      if (text === BOOKING) heardBooking(finalText(events))
      else expect(finalText(events)).toBe(text)
    }
  })

  test('the start of an utterance tells a phone line from wideband audio, whatever the voice and the line noise', () => {
    const band = (a: AudioFrame) => {
      const meter = new BandMeter()
      meter.push(a.samples)
      return meter.band
    }
    for (const voice of ['kal16', 'slt', 'rms', 'awb']) {
      const start = fliteSpeech('please call me back', voice)
      const wide = afterLineNoise({ samples: start.samples.subarray(0, 8000), sampleRate: 16000 })
      expect([voice, band(wide)]).toEqual([voice, 'wideband'])
      expect([voice, band(phoneLine(wide))]).toEqual([voice, 'phone'])
    }
    // line noise alone is too quiet to tell
    expect(band(noise(1000, 16000))).toBeUndefined()
  })

  test('the engine says it gives interim results and still opens one stream per utterance', () => {
    expect(dictation().capabilities).toEqual({ streaming: false, interimResults: true, offline: true })
  })
})
