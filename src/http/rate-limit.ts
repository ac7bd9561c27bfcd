/**
 * Token buckets per key (an API key; a source address for failed authentication), kept in memory: a limit per appliance process. `now` is an
 * argument so the maths is testable without clocks.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perSec: number,
    private readonly burst: number,
  ) {}

  /** Keys with a bucket; a bucket that has refilled is dropped by `waitFor`. */
  get size(): number {
    return this.buckets.size
  }

  /** Like `take`, without spending: 0 when a request may pass now. */
  waitFor(key: string, now: number): number {
    const b = this.buckets.get(key)
    if (!b || this.perSec <= 0) return 0
    const tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSec)
    if (tokens >= this.burst) this.buckets.delete(key)
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.perSec))
  }

  /** Returns 0 when the request may pass, else the seconds to wait before retrying. */
  take(key: string, now: number): number {
    if (this.perSec <= 0) return 0
    let b = this.buckets.get(key)
    if (!b) {
      if (this.buckets.size > 100_000) this.buckets.clear()
      b = { tokens: this.burst, at: now }
      this.buckets.set(key, b)
    }
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSec)
    b.at = now
    if (b.tokens >= 1) {
      b.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSec))
  }
}
