// The pure parts of the call workers: how the RTP range is split between them and how
// CALL_WORKERS is read.
import { expect, test } from 'bun:test'
import { availableParallelism } from 'node:os'
import { ConfigError, loadConfig } from '../../../src/platform/config/index.ts'
import { callWorkerCount, portSlices } from '../../../src/features/calls/workers/index.ts'

test('the RTP range is split into equal slices of whole even/odd pairs that never overlap', () => {
  const slices = portSlices(10001, 20000, 3)
  expect(slices).toEqual([
    { min: 10002, max: 13333 },
    { min: 13334, max: 16665 },
    { min: 16666, max: 19997 },
  ])
  for (const s of slices) expect(s.min % 2).toBe(0)
  for (let i = 1; i < slices.length; i++) expect(slices[i]!.min).toBe(slices[i - 1]!.max + 1)
})

test('a range too small to give each worker one pair is refused with the keys named', () => {
  expect(() => portSlices(10000, 10003, 3)).toThrow(/RTP_PORT_MIN..RTP_PORT_MAX/)
})

test('CALL_WORKERS auto is one worker per core; a number is taken as it is; anything else loadConfig refuses naming the key', () => {
  expect(callWorkerCount('auto')).toBe(availableParallelism())
  expect(callWorkerCount('0')).toBe(0)
  expect(callWorkerCount('3')).toBe(3)
  for (const bad of ['two', '-1', '1.5', '257']) {
    expect(() => loadConfig({ CALL_WORKERS: bad })).toThrow(ConfigError)
    expect(() => loadConfig({ CALL_WORKERS: bad })).toThrow(`CALL_WORKERS must be auto or a whole number 0..256, got ${bad}`)
  }
})
