import { describe, expect, test } from 'bun:test'
import { afterAttempt, DEFAULT_WINDOW, localIso, startAtMs, windowOpensAt, windowOpensInAll } from '../../src/features/campaigns/schedule.ts'
import { numberZones } from '../../src/features/campaigns/zones/index.ts'

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

describe('calling windows in several zones at once', () => {
  const office = { start: '09:00', end: '17:00', days: DEFAULT_WINDOW.days }
  const tollFree = numberZones('+18005550100') // every zone of +1: Pago Pago (UTC-11) to Guam (UTC+10)
  const nyLa = ['America/New_York', 'America/Los_Angeles']
  const londonNy = ['Europe/London', 'America/New_York']
  test.each([
    // [what, now (UTC), window, zones, expected opening (UTC) or null for never]
    ['New York and Los Angeles, 09:00-17:00, 07:00 in LA: at 09:00 in LA', '2026-12-01T15:00:00Z', office, nyLa, '2026-12-01T17:00:00.000Z'],
    ['New York and Los Angeles, 16:59:59 in New York: still open', '2026-12-01T21:59:59Z', office, nyLa, '2026-12-01T21:59:59.000Z'],
    ['New York and Los Angeles, 17:00 in New York: the next morning in LA', '2026-12-01T22:00:00Z', office, nyLa, '2026-12-02T17:00:00.000Z'],
    // local days differ across the date line: 08:00 in Guam is 11:00 the day before in Pago Pago
    ['Guam and Pago Pago: 08:00 in Guam', '2026-12-01T12:00:00Z', DEFAULT_WINDOW, ['Pacific/Guam', 'Pacific/Pago_Pago'], '2026-12-01T22:00:00.000Z'],
    ['the 42 zones of +1 800: open 22:00-00:30Z, from 08:00 in Guam', '2026-12-01T12:20:00Z', DEFAULT_WINDOW, tollFree, '2026-12-01T22:00:00.000Z'],
    ['the 42 zones of +1 800 at 23:00Z: open', '2026-12-01T23:00:00Z', DEFAULT_WINDOW, tollFree, '2026-12-01T23:00:00.000Z'],
    ['the 42 zones of +1 800 at 00:30Z, 21:00 in St Johns: the next evening', '2026-12-02T00:30:00Z', DEFAULT_WINDOW, tollFree, '2026-12-02T22:00:00.000Z'],
    ['the 42 zones of +1 800, 09:00-17:00: never (UTC-11 to UTC+10 is 10.5 hours round the clock)', '2026-12-01T12:20:00Z', office, tollFree, null],
    // the US moved its clocks on 8 March 2026, the UK on 29 March: between them New York is 4 hours behind London
    ['London and New York over the US clock change: 08:00 EDT', '2026-03-07T22:00:00Z', DEFAULT_WINDOW, londonNy, '2026-03-08T12:00:00.000Z'],
    ['London and New York before it: 08:00 EST', '2026-03-06T22:00:00Z', DEFAULT_WINDOW, londonNy, '2026-03-07T13:00:00.000Z'],
    // Monday in Kiritimati (UTC+14) is over before Monday starts in Pago Pago (UTC-11)
    ['Mondays only in Kiritimati and Pago Pago: never', '2026-11-30T00:00:00Z', { ...DEFAULT_WINDOW, days: ['mon'] }, ['Pacific/Kiritimati', 'Pacific/Pago_Pago'], null],
    ['no zone known: never', '2026-12-01T12:00:00Z', DEFAULT_WINDOW, [], null],
  ] as const)('%s', (_, now, window, zones, opens) => {
    const opensAt = windowOpensInAll(at(now), window as any, zones)
    expect(Number.isFinite(opensAt) ? iso(opensAt) : null).toBe(opens)
  })

  test('in one zone it is the window of that zone', () => {
    const weekdays = { start: '09:00', end: '20:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] as any }
    for (const now of ['2026-11-23T12:00:00Z', '2026-11-24T01:30:00Z', '2026-11-27T23:00:00Z', '2026-03-28T20:00:00Z']) {
      for (const zone of ['America/New_York', 'Europe/Berlin', 'Asia/Tokyo']) expect(windowOpensInAll(at(now), weekdays, [zone])).toBe(windowOpensAt(at(now), weekdays, zone))
    }
  })

  test('the local time of a moment is shown when every zone has one offset then', () => {
    expect(localIso(at('2026-12-02T16:00:00Z'), ['America/Los_Angeles'])).toBe('2026-12-02T08:00:00.000-08:00')
    expect(localIso(at('2026-07-02T15:00:00Z'), ['America/Los_Angeles'])).toBe('2026-07-02T08:00:00.000-07:00')
    expect(localIso(at('2026-12-02T08:00:00Z'), ['Europe/Guernsey', 'Europe/London'])).toBe('2026-12-02T08:00:00.000+00:00')
    expect(localIso(at('2026-12-02T16:00:00Z'), ['America/Denver', 'America/Chicago'])).toBeNull()
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
