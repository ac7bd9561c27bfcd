// The figure admission reads from an offline decoder thread: how many seconds of decoding the
// audio coming in needs per second (above 1 it falls behind), and the longest wait of one caller.
import { expect, test } from 'bun:test'
import { DecodeLoadMeter } from '../../../src/realtime/voice/stt/index.ts'
import { worstLoad } from '../../../src/realtime/voice/stt/pocketsphinx-load.ts'

const SECOND = 16000

test('a thread that keeps up reports its busy share of the interval', () => {
  const m = new DecodeLoadMeter(0)
  m.arrived(2 * SECOND)
  m.worked(2 * SECOND, 240)
  expect(m.take(1000, 0)).toEqual({ realTimeFactor: 0.24, backlogMs: 0 })
})

test('a thread that falls behind reports what the audio that came in would need, above 1', () => {
  const m = new DecodeLoadMeter(0)
  // ten callers' second each came in; it decoded 5 s of it in its whole second
  m.arrived(10 * SECOND)
  m.worked(5 * SECOND, 1000)
  expect(m.take(1000, 3 * SECOND)).toEqual({ realTimeFactor: 2, backlogMs: 3000 })
})

test('the time an utterance end takes counts, and each interval starts afresh', () => {
  const m = new DecodeLoadMeter(0)
  m.worked(0, 100)
  expect(m.take(500, 0).realTimeFactor).toBe(0.2)
  expect(m.take(1500, 0)).toEqual({ realTimeFactor: 0, backlogMs: 0 })
})

test('several threads are as loaded as the busiest', () => {
  expect(worstLoad([undefined, { realTimeFactor: 0.3, backlogMs: 900 }, { realTimeFactor: 1.1, backlogMs: 20 }])).toEqual({ realTimeFactor: 1.1, backlogMs: 900 })
  expect(worstLoad([undefined])).toBeUndefined()
})
