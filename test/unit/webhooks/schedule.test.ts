import { describe, expect, test } from 'bun:test'
import { DEFAULT_RETRY_SCHEDULE, nextAttemptDelay, parseSchedule } from '../../../src/features/webhooks/index.ts'
import { verdictOf } from '../../../src/features/webhooks/schedule.ts'

describe('webhook retry schedule', () => {
  test('the default spreads eight attempts over about 27 hours', () => {
    const s = parseSchedule(DEFAULT_RETRY_SCHEDULE)
    expect(s).toEqual([5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000])
    const hours = s.reduce((a, b) => a + b, 0) / 3_600_000
    expect(hours).toBeGreaterThan(24)
    expect(hours).toBeLessThan(30)
  })

  test('delays are jittered by at most 20 % either way, and null after the last', () => {
    const s = [1000, 2000]
    expect(nextAttemptDelay(1, s, 0)).toBe(800)
    expect(nextAttemptDelay(1, s, 0.999999)).toBe(1200)
    expect(nextAttemptDelay(2, s, 0.5)).toBe(2000)
    expect(nextAttemptDelay(3, s, 0.5)).toBeNull()
  })

  test('bad schedules are refused with the item named', () => {
    expect(() => parseSchedule('5s,soon')).toThrow('soon')
    expect(parseSchedule('50ms, 1.5s')).toEqual([50, 1500])
  })

  test('2xx is delivered, 410 is gone, anything else (and no answer) is retried', () => {
    expect([200, 204, 299].map(verdictOf)).toEqual(['delivered', 'delivered', 'delivered'])
    expect(verdictOf(410)).toBe('gone')
    expect([301, 400, 404, 429, 500, 503, null].map(verdictOf)).toEqual(Array(7).fill('retry'))
  })
})
