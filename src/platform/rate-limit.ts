/**
 * Token buckets per key (an API key, a source address that failed authentication, a SIP source
 * address), kept in memory: a limit per
 * appliance process. `now` can be passed to every method (or once, to the constructor) so the
 * arithmetic is testable without clocks.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perSec: number,
    private readonly burst: number,
    private readonly clock: () => number = () => performance.now(),
    /** Forgets every bucket past this many keys (a flood of new keys must not grow memory). */
    private readonly maxKeys = 100_000,
  ) {}

  /** Keys with a bucket; a bucket that has refilled is dropped by `waitFor`. */
  get size(): number {
    return this.buckets.size
  }

  /** Like `take`, without spending: 0 when a request may pass now. */
  waitFor(key: string, now = this.clock()): number {
    const b = this.buckets.get(key)
    if (!b || this.perSec <= 0) return 0
    const tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSec)
    if (tokens >= this.burst) this.buckets.delete(key)
    return tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.perSec))
  }

  private bucket(key: string, now: number) {
    let b = this.buckets.get(key)
    if (!b) {
      if (this.buckets.size >= this.maxKeys) this.buckets.clear()
      b = { tokens: this.burst, at: now }
      this.buckets.set(key, b)
    }
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSec)
    b.at = now
    return b
  }

  /** Takes a token: returns 0 when the request may pass, else the seconds to wait before retrying. */
  take(key: string, now = this.clock()): number {
    if (this.perSec <= 0) return 0
    const b = this.bucket(key, now)
    if (b.tokens >= 1) {
      b.tokens -= 1
      return 0
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSec))
  }

  /** True when the key has used up its tokens (nothing is taken). */
  blocked(key: string, now = this.clock()): boolean {
    if (this.perSec <= 0) return false
    return this.bucket(key, now).tokens < 1
  }

  /** Counts one event against the key, even past empty (a refusal, a failed login). */
  hit(key: string, now = this.clock()): void {
    if (this.perSec <= 0) return
    this.bucket(key, now).tokens -= 1
  }
}
