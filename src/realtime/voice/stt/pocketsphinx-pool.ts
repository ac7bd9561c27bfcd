/**
 * Decoders of one kind (mode and model), lent to one utterance at a time: a pocketsphinx decoder
 * holds a single utterance, so concurrent callers need one each. Decoders are made on demand up to
 * `cap`; a borrower that finds none free waits its turn (first come, first served).
 */
export class DecoderPool<D> {
  private readonly free: D[] = []
  private readonly waiting: ((d: D) => void)[] = []
  private lent = 0
  private limit: number

  constructor(
    private readonly make: () => D,
    private readonly destroy: (d: D) => void,
    cap: number,
  ) {
    this.limit = cap
  }

  /** Decoders lent at once at most; lowering it frees the free ones above it. */
  get cap(): number {
    return this.limit
  }

  set cap(cap: number) {
    this.limit = cap
    while (this.free.length > 0 && this.size > cap) this.destroy(this.free.pop()!)
  }

  /**
   * Calls `take` with a decoder now or once one is returned; the result cancels a wait that has
   * not been served yet. Throws when a decoder has to be made and cannot be.
   */
  borrow(take: (d: D) => void): () => void {
    if (this.lent < this.limit) {
      const d = this.free.pop() ?? this.make()
      this.lent++
      take(d)
      return () => {}
    }
    this.waiting.push(take)
    return () => {
      const i = this.waiting.indexOf(take)
      if (i >= 0) this.waiting.splice(i, 1)
    }
  }

  /** A borrowed decoder comes back: to the first waiter, else to the free list (or freed above the cap). */
  giveBack(d: D): void {
    const next = this.waiting.shift()
    if (next) return next(d)
    this.lent--
    if (this.size >= this.limit) this.destroy(d)
    else this.free.push(d)
  }

  /** Makes one decoder ahead of the first borrower when there is none at all. */
  warm(): void {
    if (this.size === 0 && this.limit > 0) this.free.push(this.make())
  }

  /** Frees every decoder nobody is using; returns how many were freed. */
  trim(): number {
    const n = this.free.length
    for (const d of this.free.splice(0)) this.destroy(d)
    return n
  }

  /** Decoders in memory (free and lent). */
  get size(): number {
    return this.lent + this.free.length
  }

  get queued(): number {
    return this.waiting.length
  }
}
