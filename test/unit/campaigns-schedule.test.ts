import { describe, expect, test } from 'bun:test'
import { afterAttempt, DEFAULT_WINDOW, numberZone, startAtMs, windowOpensAt } from '../../src/features/campaigns/schedule.ts'

const at = (iso: string) => Date.parse(iso)
const iso = (ms: number) => new Date(ms).toISOString()

describe('calling windows', () => {
  const weekdays = { start: '09:00', end: '20:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] as any }
  test.each([
    // [now (UTC), zone, expected opening (UTC)]
    ['2026-11-23T15:00:00.000Z', 'America/New_York', '2026-11-23T15:00:00.000Z'], // Monday 10:00 in New York: open
    ['2026-11-23T12:00:00.000Z', 'America/New_York', '2026-11-23T14:00:00.000Z'], // 07:00 local: opens at 09:00
    ['2026-11-24T01:30:00.000Z', 'America/New_York', '2026-11-24T14:00:00.000Z'], // Monday 20:30 local: next morning
    ['2026-11-27T23:00:00.000Z', 'Europe/Berlin', '2026-11-30T08:00:00.000Z'], // Saturday 00:00 Berlin: Monday 09:00
    ['2026-11-23T07:59:59.000Z', 'Europe/Berlin', '2026-11-23T08:00:00.000Z'], // one second before opening
    ['2026-11-23T18:59:59.000Z', 'Europe/Berlin', '2026-11-23T18:59:59.000Z'], // the last second inside
    ['2026-11-23T19:00:00.000Z', 'Europe/Berlin', '2026-11-24T08:00:00.000Z'], // end is exclusive
  ])('at %s in %s the window opens at %s', (now, zone, opens) => {
    expect(iso(windowOpensAt(at(now), weekdays, zone))).toBe(opens)
  })

  test('a window crossing a daylight-saving change keeps local hours (09:00 Berlin is 08:00Z in winter, 07:00Z in summer)', () => {
    expect(iso(windowOpensAt(at('2026-03-28T20:00:00Z'), { ...DEFAULT_WINDOW, start: '09:00' }, 'Europe/Berlin'))).toBe('2026-03-29T07:00:00.000Z')
  })

  test('the default window is 08:00-21:00 every day', () => {
    expect(iso(windowOpensAt(at('2026-11-29T06:00:00Z'), DEFAULT_WINDOW, 'UTC'))).toBe('2026-11-29T08:00:00.000Z')
    expect(windowOpensAt(at('2026-11-29T20:59:00Z'), DEFAULT_WINDOW, 'UTC')).toBe(at('2026-11-29T20:59:00Z'))
  })

  test('24:00 ends the day: 00:00-24:00 is always open', () => {
    const now = at('2026-11-29T23:59:59Z')
    expect(windowOpensAt(now, { start: '00:00', end: '24:00', days: DEFAULT_WINDOW.days }, 'Asia/Tokyo')).toBe(now)
  })
})

describe('the zone of a number', () => {
  const now = at('2026-11-23T12:00:00Z')
  test.each([
    ['+4930901820', 'America/Chicago', 'Europe/Berlin'], // one offset: the country's zone
    ['+442071838750', 'UTC', 'Europe/London'],
    ['+81312345678', 'UTC', 'Asia/Tokyo'],
    ['+14155550123', 'America/Los_Angeles', 'America/Los_Angeles'], // several offsets: the job's zone
    ['+61291234567', 'Australia/Perth', 'Australia/Perth'],
  ])('%s with job zone %s is called in %s', (num, fallback, zone) => {
    expect(numberZone(num, fallback, now)).toBe(zone)
  })
})

describe('start time', () => {
  test('a startAt without offset is read in the job zone; with one, as written', () => {
    expect(iso(startAtMs('2026-12-01T09:00:00', 'Asia/Tokyo')!)).toBe('2026-12-01T00:00:00.000Z')
    expect(iso(startAtMs('2026-12-01T09:00:00+01:00', 'Asia/Tokyo')!)).toBe('2026-12-01T08:00:00.000Z')
    expect(startAtMs('next tuesday', 'UTC')).toBeUndefined()
  })
})

describe('after an attempt', () => {
  const s = { retryAttempts: 2, retryDelayMs: 60_000, retryVoicemail: false }
  test.each([
    ['answered', 1, s, { status: 'completed' }],
    ['busy', 1, s, { status: 'pending', nextAttemptMs: 1_060_000 }],
    ['no_answer', 2, s, { status: 'pending', nextAttemptMs: 1_060_000 }],
    ['no_answer', 3, s, { status: 'failed' }], // 1 + 2 retries used
    ['busy', 1, { ...s, retryAttempts: 0 }, { status: 'failed' }],
    ['voicemail', 1, s, { status: 'completed' }],
    ['voicemail', 1, { ...s, retryVoicemail: true }, { status: 'pending', nextAttemptMs: 1_060_000 }],
    ['voicemail', 3, { ...s, retryVoicemail: true }, { status: 'completed' }],
    ['failed', 1, s, { status: 'failed' }], // errors are not retried
  ] as const)('%s on attempt %d', (outcome, attempts, settings, expected) => {
    expect(afterAttempt(outcome, attempts, settings, 1_000_000)).toEqual(expected as any)
  })
})
