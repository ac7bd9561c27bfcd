// The media clock: every call's work (playout, sending) runs on ticks scheduled against a
// monotonic clock at origin + k * tickMs, so timer lateness never accumulates. Calls are
// spread over a few phase slots so that hundreds of calls do not all send in one burst.

import { PacingHistogram } from './call/pacing.ts'

export type TickHandler = (scheduledMs: number, nowMs: number) => void

interface Slot {
  offsetMs: number
  handlers: Set<TickHandler>
  timer?: ReturnType<typeof setTimeout>
  k: number
}

export interface Subscription {
  unsubscribe(): void
}

export class MediaClock {
  private readonly slots: Slot[]
  private readonly origin: number
  /** Ticks skipped because the process stalled longer than `maxCatchUp` ticks. */
  skippedTicks = 0
  /** How late timers fire, and how long one slot's handlers take, in ms. */
  readonly lateness = new PacingHistogram()
  readonly busy = new PacingHistogram()

  constructor(
    readonly tickMs = 10,
    slots = 5,
    private readonly now: () => number = () => performance.now(),
    private readonly maxCatchUp = 3,
    /** One call's failing handler must not stop the others' audio. */
    private readonly onError: (err: unknown) => void = (err) => console.error('media clock handler failed', err),
  ) {
    this.origin = now()
    this.slots = Array.from({ length: slots }, (_, i) => ({ offsetMs: (tickMs * i) / slots, handlers: new Set<TickHandler>(), k: 0 }))
  }

  /** Runs `fn` every tick in the least loaded phase slot until unsubscribed. */
  subscribe(fn: TickHandler): Subscription {
    const slot = this.slots.reduce((a, b) => (b.handlers.size < a.handlers.size ? b : a))
    slot.handlers.add(fn)
    if (!slot.timer) this.start(slot)
    return {
      unsubscribe: () => {
        slot.handlers.delete(fn)
        if (slot.handlers.size === 0 && slot.timer) {
          clearTimeout(slot.timer)
          slot.timer = undefined
        }
      },
    }
  }

  get subscribers(): number {
    return this.slots.reduce((n, s) => n + s.handlers.size, 0)
  }

  private start(slot: Slot): void {
    const now = this.now()
    slot.k = Math.ceil((now - this.origin - slot.offsetMs) / this.tickMs)
    this.schedule(slot)
  }

  private schedule(slot: Slot): void {
    const target = this.origin + slot.offsetMs + slot.k * this.tickMs
    slot.timer = setTimeout(() => this.fire(slot), Math.max(0, target - this.now()))
  }

  private fire(slot: Slot): void {
    let now = this.now()
    const firedAt = now
    let due = this.origin + slot.offsetMs + slot.k * this.tickMs
    if (due <= now) this.lateness.record(now - due)
    while (due <= now) {
      const behind = Math.floor((now - due) / this.tickMs)
      if (behind > this.maxCatchUp) {
        // After a stall, skip ahead instead of bursting many ticks' worth of packets.
        const skip = behind - this.maxCatchUp
        this.skippedTicks += skip
        slot.k += skip
        due += skip * this.tickMs
      }
      for (const h of slot.handlers) {
        try {
          h(due, this.now())
        } catch (err) {
          this.onError(err)
        }
      }
      slot.k++
      due += this.tickMs
      now = this.now()
    }
    this.busy.record(now - firedAt)
    if (slot.handlers.size > 0) this.schedule(slot)
    else slot.timer = undefined
  }
}
