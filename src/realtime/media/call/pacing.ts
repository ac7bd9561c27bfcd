/** Histogram of send lateness (actual send time - scheduled time) in 0.1 ms buckets up to 100 ms. */
export class PacingHistogram {
  private readonly buckets = new Uint32Array(1001)
  count = 0
  maxMs = 0

  record(lateMs: number): void {
    const ms = Math.max(0, lateMs)
    this.buckets[Math.min(1000, Math.round(ms * 10))]!++
    this.count++
    if (ms > this.maxMs) this.maxMs = ms
  }

  percentile(p: number): number {
    if (this.count === 0) return 0
    const rank = Math.ceil((p / 100) * this.count)
    let seen = 0
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i]!
      if (seen >= rank) return i / 10
    }
    return 100
  }

  reset(): void {
    this.buckets.fill(0)
    this.count = 0
    this.maxMs = 0
  }

  /** The counts as plain data (to cross a thread), and back with `merge(PacingHistogram.from(...))`. */
  toJSON(): { buckets: number[]; count: number; maxMs: number } {
    return { buckets: Array.from(this.buckets), count: this.count, maxMs: this.maxMs }
  }

  static from(data: { buckets: number[]; count: number; maxMs: number }): PacingHistogram {
    const h = new PacingHistogram()
    h.buckets.set(data.buckets)
    h.count = data.count
    h.maxMs = data.maxMs
    return h
  }

  /** Adds another histogram's counts (for totals across calls). */
  merge(other: PacingHistogram): void {
    for (let i = 0; i < this.buckets.length; i++) this.buckets[i]! += other.buckets[i]!
    this.count += other.count
    this.maxMs = Math.max(this.maxMs, other.maxMs)
  }
}
