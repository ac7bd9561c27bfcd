// Campaign time maths, pure: `now` is always an argument. Calling windows in a contact's local
// time (in one zone or in several at once), the start time of a job, and when (or whether) to retry.
import { DateTime } from 'luxon'
import type { ContactOutcome } from './campaigns.table.ts'
import { WEEKDAYS, type JobSettings, type Weekday } from './campaigns.model.ts'

export const DEFAULT_WINDOW: JobSettings['callingWindow'] = { start: '08:00', end: '21:00', days: [...WEEKDAYS] }

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

const DAY_MS = 86_400_000

/** Sorted, disjoint [open, close) instants (epoch ms). */
type Intervals = Array<readonly [number, number]>

/**
 * The earliest moment at or after `nowMs` when the window is open in every one of `zones` at once
 * (a number that may be in several); Infinity when that never happens within 8 days (every weekday
 * seen), or no zone is given.
 */
export function windowOpensInAll(nowMs: number, window: JobSettings['callingWindow'], zones: readonly string[]): number {
  if (!zones.length) return Number.POSITIVE_INFINITY
  const next = openTogether(nowMs, window, zones).find(([, close]) => close > nowMs)
  return next && next[0] <= nowMs + 8 * DAY_MS ? Math.max(next[0], nowMs) : Number.POSITIVE_INFINITY
}

// a claim or a page of contacts asks for the same zones and window again and again: each set's
// intervals are worked out once per UTC day (tens of ms for the 42 zones of +1 800)
const together = new Map<string, Intervals>()
const MEMO_MAX = 512

/** When the window is open in all zones, exactly, from the UTC day of `nowMs` for 10 days. */
function openTogether(nowMs: number, window: JobSettings['callingWindow'], zones: readonly string[]): Intervals {
  const from = Math.floor(nowMs / DAY_MS) * DAY_MS
  const key = `${from} ${window.start}-${window.end} ${window.days.join(',')} ${zones.join('&')}`
  let open = together.get(key)
  if (!open) {
    open = zones.map((zone) => openIn(from, from + 10 * DAY_MS, window, zone)).reduce(intersect)
    if (together.size >= MEMO_MAX) together.clear()
    together.set(key, open)
  }
  return open
}

/** Every opening of the window in `zone` that overlaps [fromMs, toMs). */
function openIn(fromMs: number, toMs: number, window: JobSettings['callingWindow'], zone: string): Intervals {
  const start = minutesOf(window.start)
  const end = minutesOf(window.end)
  const open: Intervals = []
  for (let day = DateTime.fromMillis(fromMs, { zone }).startOf('day'); day.toMillis() < toMs; day = day.plus({ days: 1 })) {
    if (!window.days.includes(WEEKDAYS[day.weekday - 1] as Weekday)) continue
    const span = [localTime(day, start), localTime(day, end)] as const
    if (span[1] > fromMs && span[0] < span[1]) open.push(span)
  }
  return open
}

function intersect(a: Intervals, b: Intervals): Intervals {
  const both: Intervals = []
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const open = Math.max(a[i]![0], b[j]![0])
    const close = Math.min(a[i]![1], b[j]![1])
    if (open < close) both.push([open, close])
    if (a[i]![1] < b[j]![1]) i++
    else j++
  }
  return both
}

/** `ms` as local ISO 8601 with its offset (2026-12-02T08:00:00.000-08:00) when every zone has one offset then; else null. */
export function localIso(ms: number, zones: readonly string[]): string | null {
  const times = zones.map((zone) => DateTime.fromMillis(ms, { zone }))
  return times.length && times.every((t) => t.offset === times[0]!.offset) ? times[0]!.toISO() : null
}

// wall-clock hours, not elapsed minutes: a day with a daylight-saving change is 23 or 25 h long
const localTime = (day: DateTime, minutes: number) =>
  minutes >= 24 * 60 ? day.plus({ days: 1 }).startOf('day').toMillis() : day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 }).toMillis()

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
