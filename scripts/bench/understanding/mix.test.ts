// The caller's audio arithmetic: levels, noise at a set SNR, the seeded loss pattern.
import { describe, expect, test } from 'bun:test'
import { activeDbfs, framesOf, lossPattern, measuredSnrDb, mixAtSnr, scaleTo } from './mix.ts'

const RATE = 8000
/** A tone burst of `ms` with `silenceMs` of silence either side (speech with pauses, roughly). */
function burst(ms: number, silenceMs: number, amplitude = 8000): Int16Array {
  const pad = (silenceMs * RATE) / 1000
  const n = (ms * RATE) / 1000
  const out = new Int16Array(2 * pad + n)
  for (let i = 0; i < n; i++) out[pad + i] = Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / RATE))
  return out
}

function noise(samples: number, seed = 7): Int16Array {
  let s = seed
  return Int16Array.from({ length: samples }, () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    return Math.round(((s / 0x7fffffff) * 2 - 1) * 3000)
  })
}

describe('levels', () => {
  test('the active level ignores the silence around the words', () => {
    const short = activeDbfs(burst(500, 0), RATE)
    const padded = activeDbfs(burst(500, 2000), RATE)
    expect(Math.abs(short - padded)).toBeLessThan(0.1)
  })

  test('scaleTo sets the active level', () => {
    expect(activeDbfs(scaleTo(burst(800, 300, 1000), RATE, -20), RATE)).toBeCloseTo(-20, 1)
  })
})

describe('noise at an SNR', () => {
  for (const snr of [10, 15, 20]) {
    test(`mixed at ${snr} dB, the words stand ${snr} dB above the noise`, () => {
      const speech = burst(1200, 200)
      const lead = 400
      const mixed = mixAtSnr(speech, RATE, { noise: noise(RATE * 5), offset: 123, snrDb: snr, leadSamples: lead, tailSamples: 400, rampSamples: 1 })
      expect(mixed.length).toBe(speech.length + 800)
      expect(measuredSnrDb(speech, mixed, lead, RATE)).toBeCloseTo(snr, 0)
    })
  }

  test('the same bed, offset and SNR give the same bytes', () => {
    const m = { noise: noise(RATE * 3), offset: 999, snrDb: 15, leadSamples: 100, tailSamples: 100, rampSamples: 50 }
    expect(mixAtSnr(burst(300, 0), RATE, m)).toEqual(mixAtSnr(burst(300, 0), RATE, m))
  })
})

describe('packet loss', () => {
  test('drops about the share asked for, the same packets for the same seed, others for another', () => {
    const a = lossPattern(20_000, 0.03, 42)
    const share = a.filter(Boolean).length / a.length
    expect(share).toBeGreaterThan(0.025)
    expect(share).toBeLessThan(0.035)
    expect(lossPattern(20_000, 0.03, 42)).toEqual(a)
    expect(lossPattern(20_000, 0.03, 43)).not.toEqual(a)
  })
})

test('framesOf cuts 20 ms frames and pads the last', () => {
  const f = framesOf(new Int16Array(350).fill(1), RATE)
  expect(f.map((x) => x.length)).toEqual([160, 160, 160])
  expect(f[2]![29]).toBe(1)
  expect(f[2]![30]).toBe(0)
})
