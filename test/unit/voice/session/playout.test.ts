import { describe, expect, test } from 'bun:test'
import { Playout } from '../../../../src/realtime/voice/session/playout.ts'
import { SpeechHandle } from '../../../../src/realtime/voice/turn/speech-handle.ts'

const RATE = 16000
const FRAME = 320

/** A 20 ms frame of a sine at `hz`, `dbfs` loud. */
function tone(hz: number, dbfs: number, n = FRAME): Int16Array {
  const a = 32767 * Math.SQRT2 * 10 ** (dbfs / 20)
  return Int16Array.from({ length: n }, (_, i) => Math.round(a * Math.sin((2 * Math.PI * hz * i) / RATE)))
}

/** When the first voiced frame of a reply went out: 100 ms of a loud 6 kHz hiss (an "s"), then a 500 Hz vowel. */
function firstVoicedAt(lineRateHz: number): number | undefined {
  let at: number | undefined
  const playout = new Playout(RATE, () => {}, { firstVoiced: (_s, ms) => (at = ms) }, 20, lineRateHz)
  const speech = new SpeechHandle()
  for (let i = 0; i < 5; i++) playout.enqueue({ samples: tone(6000, -20), sampleRate: RATE }, speech, 0)
  for (let i = 0; i < 5; i++) playout.enqueue({ samples: tone(500, -20), sampleRate: RATE }, speech, 0)
  for (let t = 0; t <= 200; t += 20) playout.tick(t)
  return at
}

describe('playout: the first voiced frame is judged as the line carries it', () => {
  test('on a G.711 line (8 kHz) a leading "s" above 4 kHz is not voiced: the vowel is', () => {
    expect(firstVoicedAt(8000)).toBe(100)
  })

  test('on a wideband line the same "s" is heard, so it is the first voiced frame', () => {
    expect(firstVoicedAt(RATE)).toBe(0)
  })
})
