// Barge-in at the wire from the caller's side: stop time, blips and false stops, and the
// command line.
import { describe, expect, test } from 'bun:test'
import { parseArgs } from './args.ts'
import { bargeFigure, bargeTrials, welcomeLength } from './bargein.ts'
import { loadCorpus } from './corpus.ts'
import { humanUtterance } from './plan.ts'
import type { TrialResult } from './run.ts'

/** The agent's audio every 20 ms from 0 to `endMs`, loud inside `talk`. */
function rx(talk: [number, number][], endMs: number) {
  const at: number[] = []
  const db: number[] = []
  for (let t = 0; t < endMs; t += 20) (at.push(t), db.push(talk.some(([a, b]) => t >= a && t < b) ? -20 : -90))
  return { at, db }
}

const call = (kind: 'stop' | 'backchannel' | 'noise' | 'control', talk: [number, number][], loud: [number, number] = [0, 0], endMs = 16_000): TrialResult & { kind: typeof kind } => ({
  id: 'x', voice: 'festival-kal', condition: 'pcmu', split: 'tuning', category: 'template_route', speechSeconds: 1, callSeconds: 10, kind,
  turn: { answeredAt: 0, firstLoudAt: loud[0], lastLoudAt: loud[1], rx: rx(talk, endMs) },
})

/** The welcome: 12 s in sentences with 300 ms pauses, from 500 ms. */
const WELCOME: [number, number][] = [[500, 4000], [4300, 8000], [8300, 12_500]]

describe('stops', () => {
  test('the welcome stopping 400 ms after the caller began is a 400 ms stop, no blip', () => {
    const f = bargeFigure(call('stop', [[500, 2400]], [2000, 3500]), 12_000)
    expect(f).toMatchObject({ stopMs: 380, blip: false })
  })

  test('held 300 ms, went on, then stopped for good: a blip, the stop at the last loud frame', () => {
    const f = bargeFigure(call('stop', [[500, 2300], [2600, 2700]], [2000, 3500]), 12_000)
    expect(f).toMatchObject({ stopMs: 680, blip: true })
  })

  test('a welcome that talked on through the caller stops only at its own end', () => {
    expect(bargeFigure(call('stop', [[500, 12_500]], [2000, 3500]), 11_980).stopMs).toBe(12_480 - 2000)
  })
})

describe('false stops', () => {
  test("the control's welcome length is its last loud frame before a second of silence, its pauses not counted", () => {
    expect(welcomeLength(call('control', WELCOME))).toBe(11_980)
  })

  test('a backchannel the welcome went on through, pauses and a short hold included, is no false stop', () => {
    const held: [number, number][] = [[500, 2100], [2400, 4000], [4300, 8000], [8300, 12_500]]
    expect(bargeFigure(call('backchannel', held, [2000, 2300]), 11_980).falseStop).toBe(false)
  })

  test('a welcome cut off by a backchannel or noise is a false stop', () => {
    expect(bargeFigure(call('backchannel', [[500, 2400]], [2000, 2300]), 11_980).falseStop).toBe(true)
    expect(bargeFigure(call('noise', [[500, 6000]], [2000, 4000]), 11_980).falseStop).toBe(true)
  })
})

test('the barge-in calls: questions and backchannels per voice, the recording on both codecs, noise alone and controls', () => {
  const trials = bargeTrials(loadCorpus(), ['festival-kal', 'sipp-human'], 3, humanUtterance(null))
  const count = (k: string) => trials.filter((t) => t.kind === k).length
  expect([count('stop'), count('backchannel'), count('noise'), count('control')]).toEqual([3 + 8, 3, 12, 2])
  expect(trials.every((t) => t.utterance.agent === 'welcome')).toBe(true)
})

describe('the command line', () => {
  test('defaults: every voice and condition, both splits, two calls at once', () => {
    const a = parseArgs([])
    expect(a).toMatchObject({ split: 'all', concurrency: 2, bargeIn: false, costShare: 0.25 })
    expect(a.voices).toContain('pico-gb')
    expect(a.conditions).toContain('wide')
  })

  test('options are read and checked', () => {
    expect(parseArgs(['--voices', 'pico-us,sipp-human', '--conditions', 'pcma', '--split', 'heldout', '--limit', '3', '--baseline', 'main', '--barge-in'])).toMatchObject({
      voices: ['pico-us', 'sipp-human'], conditions: ['pcma'], split: 'heldout', limit: 3, baseline: 'main', bargeIn: true,
    })
    expect(() => parseArgs(['--voices', 'flite'])).toThrow('unknown voice: flite')
    expect(() => parseArgs(['--split', 'some'])).toThrow('--split is tuning, heldout or all')
    expect(() => parseArgs(['--limit', '0'])).toThrow('whole number')
    expect(() => parseArgs(['--fast'])).toThrow('unknown argument --fast')
  })
})
