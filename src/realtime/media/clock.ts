// The media clock: every call's work runs on steps of a fixed grid (origin + k * stepMs against a
// monotonic clock), so timer lateness never accumulates. Each task repeats every `periodMs` at
// its own phase on the grid, chosen where the fewest other tasks run, so hundreds of calls are
// spread over the packet period instead of all sending at one instant. A step runs in two
// phases: every due task's `send` first, then every due task's `work`, so how late a packet
// leaves is bounded by the cheap send loop, not by the receive side's decoding and resampling.

import { PacingHistogram } from './call/pacing.ts'

export type TickHandler = (scheduledMs: number, nowMs: number) => void

export interface MediaTask {
  /** Time-critical: put the due packet on the wire. Runs for all due tasks before any `work`. */
  send?: TickHandler
  /** Everything else due on this step (playout, decoding, preparing the next packet). */
  work?: TickHandler
}

export interface Subscription {
  unsubscribe(): void
}

interface Task {
  send: TickHandler | undefined
  work: TickHandler | undefined
  periodSteps: number
  phase: number
  active: boolean
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))
const mod = (a: number, m: number) => ((a % m) + m) % m

export class MediaClock {
  /** Grid spacing: `tickMs / slots`. */
  readonly stepMs: number
  private readonly origin: number
  private readonly tasks = new Set<Task>()
  private timer: ReturnType<typeof setTimeout> | undefined
  private firing = false
  /** The next grid step the timer is set for, and the first step not yet gathered. */
  private step = 0
  private cursor = 0
  private n = 0
  // Reused per firing: (task, scheduled time) of the due work, without allocating.
  private dueTasks: Task[] = []
  private dueAt: number[] = []
  /** Grid steps skipped because the process stalled longer than `maxCatchUp` ticks. */
  skippedTicks = 0
  /** How late timers fire, and how long one firing's handlers take, in ms. */
  readonly lateness = new PacingHistogram()
  readonly busy = new PacingHistogram()
  /** From a firing to the end of its send phase: the most a packet waits for other calls' sends. */
  readonly sendPhase = new PacingHistogram()

  constructor(
    /** The default task period; periods are multiples of it. */
    readonly tickMs = 10,
    /** Phase positions per `tickMs`. */
    slots = 5,
    private readonly now: () => number = () => performance.now(),
    private readonly maxCatchUp = 3,
    /** One call's failing handler must not stop the others' audio. */
    private readonly onError: (err: unknown) => void = (err) => console.error('media clock handler failed', err),
  ) {
    this.origin = now()
    this.stepMs = tickMs / slots
  }

  /**
   * Runs `task` every `periodMs` (a multiple of `tickMs`) at the least crowded phase until
   * unsubscribed. A plain function runs in the work phase.
   */
  subscribe(task: TickHandler | MediaTask, periodMs = this.tickMs): Subscription {
    const periodSteps = Math.round(periodMs / this.stepMs)
    if (periodSteps < 1 || Math.abs(periodMs / this.tickMs - Math.round(periodMs / this.tickMs)) > 1e-9) {
      throw new RangeError(`media clock period ${periodMs} ms is not a multiple of ${this.tickMs} ms`)
    }
    const t: Task = typeof task === 'function' ? { send: undefined, work: task, periodSteps, phase: 0, active: true } : { send: task.send, work: task.work, periodSteps, phase: 0, active: true }
    t.phase = this.quietestPhase(periodSteps)
    this.tasks.add(t)
    const current = Math.ceil((this.now() - this.origin) / this.stepMs)
    const first = current + mod(t.phase - current, periodSteps)
    if (!this.firing && (!this.timer || first < this.step)) this.arm(first)
    return {
      unsubscribe: () => {
        t.active = false
        this.tasks.delete(t)
        if (this.tasks.size === 0 && this.timer) {
          clearTimeout(this.timer)
          this.timer = undefined
        }
      },
    }
  }

  get subscribers(): number {
    return this.tasks.size
  }

  /** The phase whose steps carry the least share of the other tasks' runs (ties: earliest). */
  private quietestPhase(periodSteps: number): number {
    let best = 0
    let bestLoad = Infinity
    for (let p = 0; p < periodSteps; p++) {
      let load = 0
      for (const o of this.tasks) {
        const g = gcd(periodSteps, o.periodSteps)
        if (mod(p - o.phase, g) === 0) load += g / o.periodSteps
      }
      if (load < bestLoad - 1e-9) {
        bestLoad = load
        best = p
      }
    }
    return best
  }

  private isDue(t: Task, step: number): boolean {
    return mod(step - t.phase, t.periodSteps) === 0
  }

  /** The first step at or after `step` on which some task is due. */
  private nextDue(step: number): number {
    let next = Infinity
    for (const t of this.tasks) {
      const s = step + mod(t.phase - step, t.periodSteps)
      if (s < next) next = s
    }
    return next
  }

  private arm(step: number): void {
    if (this.timer) clearTimeout(this.timer)
    this.step = step
    const target = this.origin + step * this.stepMs
    this.timer = setTimeout(() => this.fire(), Math.max(0, target - this.now()))
  }

  /**
   * Sends what has fallen due, from outside the timer: the socket calls it after each datagram,
   * so that in a burst of arrivals (a trunk sending every call's packet at one instant) a due
   * packet waits for one datagram's handling, not for the whole burst. The work phase of those
   * runs waits for the timer, which is already due and fires right after the burst.
   */
  sendDue(): void {
    if (this.firing || !this.timer) return
    const now = this.now()
    const due = this.due(this.step)
    // after a stall, the timer's catch-up decides what is skipped
    if (due > now || now - due > this.maxCatchUp * this.tickMs) return
    this.lateness.record(now - due)
    this.firing = true
    this.gatherAndSend(this.n, now)
    this.firing = false
  }

  private fire(): void {
    this.timer = undefined
    const firedAt = this.now()
    let now = firedAt
    // runs whose packets sendDue sent before the timer came: their work is still to do
    const sent = this.n
    if (sent === 0 && this.due(this.step) > now) return this.arm(this.step) // an early timer
    this.firing = true
    if (this.due(this.step) <= now) {
      this.lateness.record(now - this.due(this.step))
      const behind = Math.floor((now - this.due(this.step)) / this.tickMs)
      if (behind > this.maxCatchUp) {
        // After a stall, skip ahead instead of bursting many ticks' worth of packets.
        const target = this.step + Math.round(((behind - this.maxCatchUp) * this.tickMs) / this.stepMs)
        this.skippedTicks += target - this.step
        this.step = this.nextDue(target)
      }
    }
    // Every run due by now sends before any other work. Runs that fall due while the work goes
    // on send at once, between two calls' work, so our own receive side delays a packet by at
    // most one call's work; after `tickMs` the firing yields, so received packets get a turn.
    this.cursor = this.step
    this.gatherAndSend(sent, now)
    this.sendPhase.record(this.now() - firedAt)
    for (let i = 0; i < this.n; i++) {
      this.run(this.dueTasks[i]!, this.dueTasks[i]!.work, this.dueAt[i]!)
      now = this.now()
      if (this.due(this.step) <= now && now - firedAt < this.tickMs) this.gatherAndSend(this.n, now)
    }
    this.dueTasks.fill(undefined as never, 0, this.n)
    this.n = 0
    this.firing = false
    this.busy.record(this.now() - firedAt)
    if (this.tasks.size > 0) this.arm(this.nextDue(this.cursor))
  }

  private due(step: number): number {
    return this.origin + step * this.stepMs
  }

  /** Appends the runs of every step due by `now` to the due list and runs their sends. */
  private gatherAndSend(from: number, now: number): void {
    while (this.due(this.step) <= now) {
      for (const t of this.tasks) {
        if (!this.isDue(t, this.step)) continue
        this.dueTasks[this.n] = t
        this.dueAt[this.n++] = this.due(this.step)
      }
      this.cursor = this.step + 1
      this.step = this.nextDue(this.cursor)
    }
    for (let i = from; i < this.n; i++) this.run(this.dueTasks[i]!, this.dueTasks[i]!.send, this.dueAt[i]!)
  }

  private run(task: Task, fn: TickHandler | undefined, scheduled: number): void {
    if (!fn || !task.active) return
    try {
      fn(scheduled, this.now())
    } catch (err) {
      this.onError(err)
    }
  }
}
