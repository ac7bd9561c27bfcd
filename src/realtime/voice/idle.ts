/** setTimeout and clearTimeout, or a test's clock. */
export interface IdleTimers {
  set(fn: () => void, ms: number): unknown
  clear(handle: unknown): void
}

const realTimers: IdleTimers = {
  set(fn, ms) {
    const t = setTimeout(fn, ms)
    t.unref?.()
    return t
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

/**
 * Releases an engine's memory once nothing has used it for `idleMs`. Users bracket their work
 * with hold()/the returned release; the countdown starts when the last holder lets go, and any
 * new hold cancels it. A keeper (keep()) stops the release without stopping the countdown: a
 * call worker sharing the engine's threads while it runs, so that the engine goes as soon as
 * the worker does once calls have been over for `idleMs`, not `idleMs` after that.
 * idleMs <= 0 never releases.
 */
export class IdleRelease {
  private holders = 0
  private keepers = 0
  private timer: unknown
  /** The countdown ran out while a keeper was there: the release waits for the last keeper. */
  private due = false

  constructor(
    private readonly idleMs: number,
    /** May return a promise: releaseNow() resolves once it has. */
    private readonly release: () => unknown,
    private readonly timers: IdleTimers = realTimers,
  ) {}

  /** Marks the engine in use until the returned function is called (once). */
  hold(): () => void {
    this.holders++
    this.cancel()
    return this.once(() => {
      this.holders--
      if (this.holders === 0) this.arm()
    })
  }

  /** Keeps the engine from being released until the returned function is called (once), without counting as use. */
  keep(): () => void {
    this.keepers++
    return this.once(() => {
      this.keepers--
      if (this.keepers > 0 || this.holders > 0) return
      if (this.due) void this.releaseNow()
      else if (this.timer === undefined) this.arm()
    })
  }

  /** Starts the countdown when nothing holds the engine (after a load nobody has used yet). */
  arm(): void {
    this.cancel()
    if (this.idleMs <= 0 || this.holders > 0) return
    this.timer = this.timers.set(() => {
      this.timer = undefined
      if (this.holders > 0) return
      if (this.keepers > 0) this.due = true
      else void this.releaseNow()
    }, this.idleMs)
  }

  cancel(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer)
    this.timer = undefined
    this.due = false
  }

  /** Releases now unless something holds or keeps the engine; resolves once the release is done. */
  async releaseNow(): Promise<void> {
    if (this.holders > 0 || this.keepers > 0) return
    this.cancel()
    await this.release()
  }

  get inUse(): boolean {
    return this.holders > 0
  }

  private once(fn: () => void): () => void {
    let done = false
    return () => {
      if (done) return
      done = true
      fn()
    }
  }
}
