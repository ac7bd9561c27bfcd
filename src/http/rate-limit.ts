/**
 * Token buckets per API key, kept in memory: a limit per appliance process. `now` is an
 * argument so the maths is testable without clocks.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perSec: number,
    private readonly burst: number,
  ) {}

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
