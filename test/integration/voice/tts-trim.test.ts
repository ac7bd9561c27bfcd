// Issue 22: flite opens each sentence with about a quarter second of near silence, which a
// caller hears as the agent's slowness. Through trimmedTts the audio starts at the words; the
// words themselves are the engine's samples, unchanged.
import { afterAll, describe, expect, test } from 'bun:test'
import { concatFrames } from '../../../src/realtime/voice/audio.ts'
import { drain } from '../../../src/realtime/voice/base.ts'
import { FLITE_VOICES, FliteTts, TRIM_DEFAULTS, trimmedTts, type TtsEvent } from '../../../src/realtime/voice/tts/index.ts'

afterAll(() => FliteTts.shutdown())

const RATE = 8000
const ONSET_PAD = (TRIM_DEFAULTS.onsetPadMs * RATE) / 1000
const TRAILING_PAD = (TRIM_DEFAULTS.trailingPadMs * RATE) / 1000
const samplesOf = (events: TtsEvent[]) => concatFrames(events.flatMap((e) => (e.type === 'audio' ? [e.frame] : []))).samples
const first = (s: Int16Array, level: number) => s.findIndex((v) => Math.abs(v) >= level)
const last = (s: Int16Array, level: number) => s.findLastIndex((v) => Math.abs(v) >= level)

/** Where `part` lies in `whole`, sample for sample (-1 when it is not a piece of it). */
function offsetIn(whole: Int16Array, part: Int16Array): number {
  search: for (let o = 0; o + part.length <= whole.length; o++) {
    for (let i = 0; i < part.length; i++) if (whole[o + i] !== part[i]) continue search
    return o
  }
  return -1
}

async function rawAndTrimmed(voice: (typeof FLITE_VOICES)[number], text: string) {
  const flite = new FliteTts({ voice, sampleRate: RATE, workers: 1 })
  const raw = await drain(flite.synthesize(text))
  const trimmed = await drain(trimmedTts(flite).synthesize(text))
  expect([raw.errors, trimmed.errors]).toEqual([[], []])
  return { raw: samplesOf(raw.events), trimmed: samplesOf(trimmed.events), rawDone: raw.events.at(-1), trimmedDone: trimmed.events.at(-1) }
}

describe('flite through trimmedTts', () => {
  for (const voice of FLITE_VOICES) {
    test(`leading silence is trimmed (${voice})`, async () => {
      const { raw, trimmed, rawDone, trimmedDone } = await rawAndTrimmed(voice, 'Thank you for calling. How can I help you today?')
      const onset = first(raw, TRIM_DEFAULTS.voicedLevel)
      // what the caller waited for before: flite's near silence ahead of the words
      expect((onset * 1000) / RATE).toBeGreaterThan(100)
      // the words are the engine's own samples, from the onset pad on
      expect(offsetIn(raw, trimmed)).toBe(onset - ONSET_PAD)
      expect(first(trimmed, TRIM_DEFAULTS.voicedLevel)).toBe(ONSET_PAD)
      // shorter by the leading silence and by the trailing silence beyond its pad, no more
      const trailing = raw.length - 1 - last(raw, TRIM_DEFAULTS.voicedLevel)
      expect(raw.length - trimmed.length).toBe(onset - ONSET_PAD + Math.max(0, trailing - TRAILING_PAD))
      // billed as the provider produced it
      expect(trimmedDone).toEqual(rawDone!)
    })
  }

  test("kal16's buzz before a /w/ goes with the silence and the words are whole", async () => {
    const { raw, trimmed } = await rawAndTrimmed('kal16', 'What is your name?')
    const offset = offsetIn(raw, trimmed)
    expect(offset).toBeGreaterThan(0)
    // the buzz is voiced by level alone: it is in the raw audio, ahead of the words
    expect(first(raw, TRIM_DEFAULTS.voicedLevel)).toBeLessThan((20 * RATE) / 1000)
    // nothing dropped reaches the words' level, and more than 150 ms went
    expect(first(raw.subarray(0, offset), TRIM_DEFAULTS.wordsLevel)).toBe(-1)
    expect((offset * 1000) / RATE).toBeGreaterThan(150)
    expect(offset + trimmed.length).toBeGreaterThan(last(raw, TRIM_DEFAULTS.voicedLevel))
  })
})
