// The retry schedule of webhook deliveries. Pure.

/** Delays after attempts 1, 2, ...: about 27 h in all (the Svix / Standard Webhooks practice). */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h'

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Parses "5s,5m,30m,2h" into milliseconds; throws on a bad item. */
export function parseSchedule(text: string): number[] {
  return text.split(',').map((item) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(item)
    if (!m) throw new Error(`bad retry delay "${item}": use a number and ms, s, m or h`)
    return Number(m[1]) * UNITS[m[2] as string]!
  })
}

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
