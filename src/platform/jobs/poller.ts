import type { Logger } from '../log.ts'

/**
 * Runs `tick` every `intervalMs` (and at once on `wake()`), never two at a time. `stop()`
 * waits for the running tick, so a graceful stop leaves no work half done in this process;
 * work cut by a crash is recovered through the database leases the tick takes.
 */
export class Poller {
  private timer?: ReturnType<typeof setTimeout>
  private running?: Promise<void>
  private stopped = true
  private again = false

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly tick: () => Promise<void>,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false
    this.schedule(0)
  }

  /** Something became due: run soon instead of at the next interval. */
  wake(): void {
    if (this.stopped) return
    if (this.running) this.again = true
    else this.schedule(0)
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.run(), ms)
  }

  private run(): void {
    if (this.stopped || this.running) return
    this.running = this.tick()
      .catch((err) => this.log.error({ err, job: this.name }, 'background job failed; retrying at the next interval'))
      .finally(() => {
        this.running = undefined
        if (this.stopped) return
        const soon = this.again
        this.again = false
        this.schedule(soon ? 0 : this.intervalMs)
      })
  }
}
