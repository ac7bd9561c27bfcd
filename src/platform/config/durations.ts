// A list of delays as an operator writes it ("5s,5m,30m,2h"), e.g. WEBHOOK_RETRY_SCHEDULE.
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Parses "5s,5m,30m,2h" into milliseconds; throws on a bad item. */
export function parseSchedule(text: string): number[] {
  return text.split(',').map((item) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(item)
    if (!m) throw new Error(`bad retry delay "${item}": use a number and ms, s, m or h`)
    return Number(m[1]) * UNITS[m[2] as string]!
  })
}
