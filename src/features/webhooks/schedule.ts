// The retry schedule of webhook deliveries. Pure.
export { parseSchedule } from '../../platform/config/durations.ts'

/** Delays after attempts 1, 2, ...: about 27 h in all (the Svix / Standard Webhooks practice). */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h'

/**
 * When to try again after `attempts` failed attempts, or null when the schedule is used up.
 * `random` in [0, 1) spreads retries by up to ±20 % so receivers coming back are not flooded.
 */
export function nextAttemptDelay(attempts: number, schedule: number[], random: number): number | null {
  const base = schedule[attempts - 1]
  if (base === undefined) return null
  return Math.round(base * (0.8 + 0.4 * random))
}

/** What an HTTP answer means for the delivery. */
export function verdictOf(status: number | null): 'delivered' | 'gone' | 'retry' {
  if (status !== null && status >= 200 && status < 300) return 'delivered'
  if (status === 410) return 'gone'
  return 'retry'
}
