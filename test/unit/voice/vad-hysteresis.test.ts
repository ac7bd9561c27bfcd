import { describe, expect, test } from 'bun:test'
import {
  type HysteresisParams,
  INITIAL_VAD_STATE,
  type VadDecision,
  validateHysteresis,
  vadStep,
} from '../../../src/realtime/voice/vad/index.ts'

const P: HysteresisParams = { startThreshold: 0.6, stopThreshold: 0.3, minSpeechMs: 60, minSilenceMs: 100 }

/** Runs a probability per 20 ms window through the machine; returns the decisions. */
function run(probs: number[], params = P): VadDecision[] {
  let state = INITIAL_VAD_STATE
  const out: VadDecision[] = []
  probs.forEach((p, i) => {
    const step = vadStep(params, state, p, i * 20, 20)
    state = step.state
    if (step.decision) out.push(step.decision)
  })
  return out
}

describe('VAD hysteresis state machine', () => {
  const cases: [string, number[], VadDecision[]][] = [
    ['silence stays quiet', [0, 0.1, 0.2, 0.1], []],
    ['a blip shorter than the minimum speech is ignored', [0, 0.9, 0.9, 0.1, 0, 0, 0, 0, 0], []],
    ['speech starts where the voiced run began once it is long enough', [0, 0.9, 0.9, 0.9, 0.9], [{ type: 'speech_start', atMs: 20 }]],
    ['a probability between the thresholds does not start speech', [0.5, 0.5, 0.5, 0.5, 0.5], []],
    [
      'between the thresholds keeps an ongoing speech going',
      [0.9, 0.9, 0.9, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
      [{ type: 'speech_start', atMs: 0 }],
    ],
    [
      'speech ends at the first silent window once the silence is long enough',
      [0.9, 0.9, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
      [
        { type: 'speech_start', atMs: 0 },
        { type: 'speech_end', atMs: 80, decidedAtMs: 180, speechMs: 80 },
      ],
    ],
    [
      'a pause shorter than the minimum silence does not end speech',
      [0.9, 0.9, 0.9, 0.1, 0.1, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1],
      [
        { type: 'speech_start', atMs: 0 },
        { type: 'speech_end', atMs: 140, decidedAtMs: 240, speechMs: 140 },
      ],
    ],
    [
      'two utterances give two start/end pairs',
      [0.9, 0.9, 0.9, 0, 0, 0, 0, 0, 0.8, 0.8, 0.8, 0, 0, 0, 0, 0],
      [
        { type: 'speech_start', atMs: 0 },
        { type: 'speech_end', atMs: 60, decidedAtMs: 160, speechMs: 60 },
        { type: 'speech_start', atMs: 160 },
        { type: 'speech_end', atMs: 220, decidedAtMs: 320, speechMs: 60 },
      ],
    ],
  ]
  for (const [name, probs, expected] of cases) test(name, () => expect(run(probs)).toEqual(expected))

  test('zero minimums decide on the very window that crosses a threshold', () => {
    const p = { startThreshold: 0.5, stopThreshold: 0.5, minSpeechMs: 0, minSilenceMs: 0 }
    expect(run([0, 0.7, 0.2], p)).toEqual([
      { type: 'speech_start', atMs: 20 },
      { type: 'speech_end', atMs: 40, decidedAtMs: 60, speechMs: 20 },
    ])
  })

  test('rejects thresholds outside 0..1, a stop above the start, and negative durations', () => {
    expect(() => validateHysteresis({ ...P, startThreshold: 1.2 })).toThrow(RangeError)
    expect(() => validateHysteresis({ ...P, stopThreshold: 0.7 })).toThrow(/must not exceed/)
    expect(() => validateHysteresis({ ...P, minSilenceMs: -1 })).toThrow(RangeError)
    expect(validateHysteresis(P)).toBe(P)
  })
})
