// The silence trimmer (issue 22): a synthesis starts at its words and ends a short pad after
// them; everything between is passed on unchanged, whatever the engine's frame sizes.
import { describe, expect, test } from 'bun:test'
import { drain } from '../../../../src/realtime/voice/base.ts'
import { SilenceTrimmer, TRIM_DEFAULTS, trimmedTts, type TtsEvent } from '../../../../src/realtime/voice/tts/index.ts'
import { concat, hiss, pieces, ScriptTts, tone } from './scripted-tts.ts'

const RATE = 8000
const ms = (n: number) => Math.round((n * RATE) / 1000)
const ONSET_PAD = ms(TRIM_DEFAULTS.onsetPadMs)
const TRAILING_PAD = ms(TRIM_DEFAULTS.trailingPadMs)

function trim(parts: Int16Array[]): { out: Int16Array; trimmer: SilenceTrimmer } {
  const trimmer = new SilenceTrimmer(RATE)
  const out: Int16Array[] = []
  for (const p of parts) {
    const o = trimmer.push(p)
    if (o) out.push(o)
  }
  const tail = trimmer.end()
  if (tail) out.push(tail)
  return { out: concat(...out), trimmer }
}

// 250 ms of near silence, 300 ms of words, a 250 ms pause, 300 ms of words, 400 ms of silence
const lead = hiss(250, 120)
const words1 = tone(300, 6000)
const pause = hiss(250, 120, RATE, 7)
const words2 = tone(300, 6000, RATE, 220)
const raw = concat(lead, words1, pause, words2, hiss(400, 120, RATE, 9))
const wordsStart = lead.length
const wordsEnd = lead.length + words1.length + pause.length + words2.length

describe('silence trimmer', () => {
  test('leading silence is dropped up to the onset pad and trailing silence cut to its pad; the pause between is kept', () => {
    const { out, trimmer } = trim([raw])
    expect(trimmer.onset).toBe(wordsStart)
    expect(out).toEqual(raw.subarray(wordsStart - ONSET_PAD, wordsEnd + TRAILING_PAD))
    expect(trimmer.leadingDropped).toBe(wordsStart - ONSET_PAD)
    expect(trimmer.trailingDropped).toBe(raw.length - wordsEnd - TRAILING_PAD)
  })

  test('frames of any size give the same audio', () => {
    const whole = trim([raw]).out
    for (const sizes of [[1], [7, 1], [137], [160, 320, 3], [1600], [3201 >> 1]]) expect(trim(pieces(raw, sizes)).out).toEqual(whole)
  })

  test('nothing but near silence is held back: voiced audio goes out in the push that brings it', () => {
    const t = new SilenceTrimmer(RATE)
    expect(t.push(lead)).toBeUndefined()
    // the first half of the words: out at once, from the onset pad
    const half = words1.subarray(0, words1.length / 2)
    expect(t.push(half)).toEqual(concat(lead.subarray(lead.length - ONSET_PAD), half.subarray(0, lastVoiced(half) + 1)))
    // a pause is held until the words after it come, then goes out unchanged with them
    const rest = words1.subarray(words1.length / 2)
    t.push(rest)
    expect(t.push(pause)).toBeUndefined()
    const next = t.push(words2)!
    expect(next.subarray(0, rest.length - lastVoiced(rest) - 1 + pause.length)).toEqual(concat(rest.subarray(lastVoiced(rest) + 1), pause))
  })

  test("a buzz before the words goes with the silence; a quiet consonant that starts them stays", () => {
    // flite's kal voices: a 60 ms buzz peaking at 1000, 150 ms before the words
    const buzz = concat(tone(60, 1000, RATE, 200), hiss(150, 150))
    const fricative = hiss(40, 700, RATE, 3).map((v) => (Math.abs(v) < 300 ? Math.sign(v) * 300 : v))
    const closure = hiss(70, 100)
    const audio = concat(buzz, fricative, closure, words1, hiss(100, 100))
    const { out, trimmer } = trim(pieces(audio, [160]))
    expect(trimmer.onset).toBe(buzz.length)
    expect(out).toEqual(audio.subarray(buzz.length - ONSET_PAD, buzz.length + fricative.length + closure.length + words1.length + TRAILING_PAD))
  })

  test('a synthesis without words gives no audio', () => {
    expect(trim([hiss(500, 200)]).out.length).toBe(0)
  })

  test('words from the first sample lose nothing at the start', () => {
    const audio = concat(words1, hiss(20, 50))
    expect(trim(pieces(audio, [320])).out).toEqual(audio)
  })
})

describe('trimmedTts', () => {
  test('trims the audio of any engine and passes its other events as they are, done with the billed figures', async () => {
    const frames = pieces(raw, [1600])
    const inner = new ScriptTts(RATE, [[...frames, 'done']])
    const tts = trimmedTts(inner)
    expect([tts.provider, tts.sampleRate, tts.capabilities]).toEqual([inner.provider, inner.sampleRate, inner.capabilities])
    const { events, errors } = await drain(tts.synthesize('Two parts.'))
    expect(errors).toEqual([])
    const audio = events.flatMap((e) => (e.type === 'audio' ? [e.frame] : []))
    expect(audio.every((f) => f.sampleRate === RATE)).toBe(true)
    expect(concat(...audio.map((f) => f.samples))).toEqual(raw.subarray(wordsStart - ONSET_PAD, wordsEnd + TRAILING_PAD))
    expect(events.at(-1)).toEqual({ type: 'done', characters: 'Two parts.'.length, audioMs: (raw.length * 1000) / RATE })
  })

  test('an engine that starts over after a retryable failure is trimmed from its new start; a fatal failure passes through', async () => {
    const retried = await drain(trimmedTts(new ScriptTts(RATE, [[{ fail: 'retryable' }, lead, words1, 'done']])).synthesize('Again.'))
    expect(retried.errors.map((e) => e.willRetry)).toEqual([true])
    const audio = retried.events.flatMap((e: TtsEvent) => (e.type === 'audio' ? [e.frame.samples] : []))
    expect(concat(...audio)).toEqual(concat(lead.subarray(lead.length - ONSET_PAD), words1))

    const failed = await drain(trimmedTts(new ScriptTts(RATE, [[{ fail: 'fatal' }]])).synthesize('Never.'))
    expect(failed.events).toEqual([])
    expect(failed.errors.map((e) => [e.error.status, e.willRetry])).toEqual([[503, false]])
  })

  test('text the engine refuses throws at synthesize(), and closing the trimmed stream closes the engine\'s', async () => {
    const inner = new ScriptTts(RATE, [[lead, words1, 'done']])
    const tts = trimmedTts(inner)
    const stream = tts.synthesize('Hello.')
    stream.close()
    expect(inner.streams[0]!.signal.aborted).toBe(true)
    expect(() => trimmedTts({ ...inner, synthesize: () => { throw new RangeError('nothing to say') } }).synthesize(' ')).toThrow(/nothing to say/)
  })
})

function lastVoiced(samples: Int16Array): number {
  let i = samples.length - 1
  while (i >= 0 && Math.abs(samples[i]!) < TRIM_DEFAULTS.voicedLevel) i--
  return i
}
