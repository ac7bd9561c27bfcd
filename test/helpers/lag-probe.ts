/**
 * Event-loop lag of this process: a timer re-armed every `intervalMs` records how late it fired.
 * Tests run the appliance in-process, so a request that holds the appliance's event loop shows
 * here as lag.
 */
export class LagProbe {
  private worst = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private due = 0

  constructor(private readonly intervalMs = 5) {}

  start(): this {
    const tick = () => {
      const late = performance.now() - this.due
      if (late > this.worst) this.worst = late
      this.arm()
    }
    this.arm = () => {
      this.due = performance.now() + this.intervalMs
      this.timer = setTimeout(tick, this.intervalMs)
    }
    this.arm()
    return this
  }

  private arm: () => void = () => {}

  /** The largest lateness, in ms, since start or the last reset. */
  get worstMs(): number {
    return Math.max(this.worst, performance.now() - this.due)
  }

  reset(): void {
    this.worst = 0
  }

  stop(): void {
    clearTimeout(this.timer)
  }
}
