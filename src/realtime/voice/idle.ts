/**
 * Releases an engine's memory once nothing has used it for `idleMs`. Users bracket their work
 * with hold()/the returned release; the countdown starts when the last holder lets go, and any
 * new hold cancels it. idleMs <= 0 never releases.
 */
export class IdleRelease {
  private holders = 0
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly idleMs: number,
    private readonly release: () => void,
  ) {}

  /** Marks the engine in use until the returned function is called (once). */
  hold(): () => void {
    this.holders++
    this.cancel()
    let done = false
    return () => {
      if (done) return
      done = true
      this.holders--
      if (this.holders === 0) this.arm()
    }
  }

  /** Starts the countdown when nothing holds the engine (after a load nobody has used yet). */
  arm(): void {
    this.cancel()
    if (this.idleMs <= 0 || this.holders > 0) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (this.holders === 0) this.release()
    }, this.idleMs)
    this.timer.unref?.()
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }

  get inUse(): boolean {
    return this.holders > 0
  }
}
