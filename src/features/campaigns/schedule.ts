// Campaign time maths, pure: `now` is always an argument. Calling windows in a contact's local
// time, the zone of a number, the start time of a job, and when (or whether) to retry.
import { DateTime } from 'luxon'
import { parsePhoneNumberFromString } from 'libphonenumber-js'
import type { ContactOutcome } from './campaigns.table.ts'
import { WEEKDAYS, type JobSettings, type Weekday } from './campaigns.model.ts'

export const DEFAULT_WINDOW: JobSettings['callingWindow'] = { start: '08:00', end: '21:00', days: [...WEEKDAYS] }

export const isZone = (zone: string): boolean => DateTime.now().setZone(zone).isValid

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/**
 * The earliest moment at or after `nowMs` inside the window, in `zone`: `nowMs` itself when the
 * window is open. A window with end <= start never opens (refused at creation).
 */
export function windowOpensAt(nowMs: number, window: JobSettings['callingWindow'], zone: string): number {
  const start = minutesOf(window.start)
  const end = minutesOf(window.end)
  const now = DateTime.fromMillis(nowMs, { zone })
  for (let i = 0; i <= 7; i++) {
    const day = now.startOf('day').plus({ days: i })
    if (!window.days.includes(WEEKDAYS[day.weekday - 1] as Weekday)) continue
    const open = localTime(day, start)
    const close = localTime(day, end)
    if (nowMs >= open && nowMs < close) return nowMs
    if (open > nowMs) return open
  }
  return Number.POSITIVE_INFINITY
}

// wall-clock hours, not elapsed minutes: a day with a daylight-saving change is 23 or 25 h long
const localTime = (day: DateTime, minutes: number) =>
  minutes >= 24 * 60 ? day.plus({ days: 1 }).startOf('day').toMillis() : day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 }).toMillis()

/**
 * The time zone a number is called in: its country's, when the country has one offset now (ICU's
 * zones of the region, through Intl.Locale); else (the US, Canada, Russia, Australia...) `fallback`.
 */
export function numberZone(e164: string, fallback: string, nowMs: number): string {
  const country = parsePhoneNumberFromString(e164)?.country
  if (!country) return fallback
  const zones = zonesOf(country)
  if (!zones.length) return fallback
  const offsets = new Set(zones.map((z) => DateTime.fromMillis(nowMs, { zone: z }).offset))
  return offsets.size === 1 ? (zones[0] as string) : fallback
}

const zoneCache = new Map<string, string[]>()
function zonesOf(country: string): string[] {
  let zones = zoneCache.get(country)
  if (!zones) {
    const locale = new Intl.Locale(`und-${country}`) as Intl.Locale & { getTimeZones?(): string[] }
    zones = locale.getTimeZones?.() ?? []
    zoneCache.set(country, zones)
  }
  return zones
}

/** startAt read in `zone` when it carries no offset; undefined when it is not a date. */
export function startAtMs(startAt: string, zone: string): number | undefined {
  const hasOffset = /(Z|[+-]\d\d(:?\d\d)?)$/i.test(startAt.trim())
  const dt = hasOffset ? DateTime.fromISO(startAt, { setZone: true }) : DateTime.fromISO(startAt, { zone })
  return dt.isValid ? dt.toMillis() : undefined
}

/** Whether an attempt's outcome is worth another attempt, under the job's settings. */
export function retryable(outcome: ContactOutcome, settings: Pick<JobSettings, 'retryVoicemail'>): boolean {
  return outcome === 'no_answer' || outcome === 'busy' || (outcome === 'voicemail' && settings.retryVoicemail)
}

export type AfterAttempt =
  | { status: 'pending'; nextAttemptMs: number }
  | { status: 'completed' | 'failed' }

/** What becomes of a contact after attempt number `attempts` (1-based) ended with `outcome`. */
export function afterAttempt(outcome: ContactOutcome, attempts: number, settings: Pick<JobSettings, 'retryAttempts' | 'retryDelayMs' | 'retryVoicemail'>, nowMs: number): AfterAttempt {
  if (retryable(outcome, settings) && attempts < 1 + settings.retryAttempts) return { status: 'pending', nextAttemptMs: nowMs + settings.retryDelayMs }
  return { status: outcome === 'answered' || outcome === 'voicemail' ? 'completed' : 'failed' }
}
