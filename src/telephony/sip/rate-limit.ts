/**
 * Per-source token bucket over refused requests: a scanner that keeps collecting 4xx answers is
 * ignored until its bucket refills, while a trunk whose calls are accepted is never slowed.
 * `now` is injectable so the arithmetic is testable without waiting.
 */
export class RateLimiter {
  private buckets = new Map<string, { tokens: number; at: number }>()

  constructor(
    private readonly perSec: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private bucket(source: string) {
    const t = this.now()
    let b = this.buckets.get(source)
    if (!b) {
      if (this.buckets.size >= 10_000) this.buckets.clear()
      b = { tokens: this.burst, at: t }
      this.buckets.set(source, b)
    }
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.perSec)
    b.at = t
    return b
  }

  /** True when the source has used up its refusals. */
  blocked(source: string): boolean {
    if (this.perSec <= 0) return false
    return this.bucket(source).tokens < 1
  }

  /** Counts one refusal against the source. */
  hit(source: string): void {
    if (this.perSec <= 0) return
    this.bucket(source).tokens -= 1
  }
}
