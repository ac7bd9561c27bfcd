import { describe, expect, test } from 'bun:test'
import { DEFAULT_ONSET, LineOnset, validateOnset } from '../../../src/realtime/voice/vad/onset.ts'

/** Feeds 20 ms frames of the given levels; returns each event with its frame's start time. */
function feed(onset: LineOnset, levels: number[], fromMs = 0): [number, string][] {
  const out: [number, string][] = []
  levels.forEach((db, i) => {
    const ev = onset.push(db, 20)
    if (ev) out.push([fromMs + i * 20, ev])
  })
  return out
}
const frames = (n: number, db: number | ((i: number) => number)) => Array.from({ length: n }, (_, i) => (typeof db === 'number' ? db : db(i)))
/** A voice: syllables of 100 ms at -25 dBFS, dips of 60 ms to -45 dBFS. */
const voice = (n: number) => frames(n, (i) => (i % 8 < 5 ? -25 : -45))

describe("the line's onset", () => {
  test('two loud frames over a quiet line hold the agent; a quarter second below the gate lets it go', () => {
    const o = new LineOnset()
    expect(feed(o, [...frames(25, -60), -38, -36, -35, ...frames(12, -60)])).toEqual([[520, 'onset'], [780, 'quiet']])
  })

  test('a sound below -40 dBFS, or one frame of a click, holds nothing', () => {
    expect(feed(new LineOnset(), [...frames(25, -60), ...frames(20, -44)])).toEqual([])
    expect(feed(new LineOnset(), [...frames(25, -60), -20, -60, -60, -20, ...frames(10, -60)])).toEqual([])
  })

  test('a voice, with its dips between syllables, stays held', () => {
    expect(feed(new LineOnset(), [...frames(25, -60), ...voice(40)])).toEqual([[520, 'onset']])
  })

  test('a steady noise is let go 300 ms after it began and holds no more while it lasts; a voice over it holds again', () => {
    const o = new LineOnset()
    const noise = frames(50, (i) => -35 + (i % 3) - 1)
    expect(feed(o, [...frames(25, -60), ...noise])).toEqual([[520, 'onset'], [780, 'quiet']])
    // the voice 10 dB over the noise
    expect(feed(o, voice(20).map((db) => Math.max(db, -35)))).toEqual([[20, 'onset']])
  })

  test('once the noise has gone, the floor is the line again', () => {
    const o = new LineOnset()
    feed(o, [...frames(25, -60), ...frames(30, -35)])
    expect(feed(o, [...frames(15, -60), -38, -37, -37])).toEqual([[320, 'onset']])
  })

  test('a sound 900 ms long that the VAD does not call speech: let go, and no new hold until the sound has ended', () => {
    const o = new LineOnset()
    const events = feed(o, [...frames(25, -60), ...voice(60), ...frames(15, -60), ...voice(5)])
    expect(events).toEqual([[520, 'onset'], [1380, 'quiet'], [2020, 'onset']])
  })

  test('reset (the VAD has the speech) needs a new rise for the next hold', () => {
    const o = new LineOnset()
    feed(o, [...frames(25, -60), -30, -30])
    expect(o.holding).toBe(true)
    o.reset()
    expect(o.holding).toBe(false)
    expect(feed(o, [-30, -30])).toEqual([[20, 'onset']])
  })

  test('bad parameters are refused', () => {
    expect(() => validateOnset({ ...DEFAULT_ONSET, minDbfs: 3 })).toThrow('at most 0 dBFS')
    expect(() => validateOnset({ ...DEFAULT_ONSET, holdMs: -1 })).toThrow('holdMs must be non-negative')
  })
})
