// The media thread's side of pacing: packets are prepared `leadMs` ahead of their slot and
// queued here, and the pacer thread (pacer-thread.ts) sends each at its instant. A packet that
// cannot be queued (ring full, too big, pacer stopped) is the caller's to send at once.
import { workerScript } from '../../../platform/embedded/index.ts'
import { monotonicOffset } from './monotonic.ts'
import { SendRing, type PacerMode } from './ring.ts'

/** Where the outcome of a queued packet is reported, on the media thread. */
export interface PacedOwner {
  /** The packet went out `lateMs` after its due instant. */
  sent(lateMs: number): void
  /** sendto failed with `errno` (ECONNREFUSED from an earlier ICMP error, ENOBUFS...). */
  failed(errno: number): void
}

export interface PacerOptions {
  /** SCHED_FIFO priority to ask for (1-99); 0 runs an ordinary thread. */
  priority: number
  /** How far ahead of its slot a packet is prepared, in ms. */
  leadMs: number
  /** Ring size, a power of two: packets queued at once across the thread's calls. */
  slots?: number
}

/** A thread starts in tens of ms; this only bounds a start that went wrong. */
const START_LIMIT_MS = 10_000
/** How long close waits for the pacer to send a call's last packets before giving up on it. */
const SETTLE_LIMIT_MS = 1000

export class Pacer {
  readonly leadMs: number
  readonly #ring: SendRing
  readonly #owners: (PacedOwner | undefined)[]
  readonly #offset = monotonicOffset()
  readonly #worker: Worker
  #harvested: number
  #stopped = false
  /** Packets the ring could not take, sent by their callers at once. */
  overflows = 0

  private constructor(ring: SendRing, worker: Worker, leadMs: number) {
    this.#ring = ring
    this.#worker = worker
    this.leadMs = leadMs
    this.#owners = new Array(ring.slots)
    this.#harvested = ring.head
  }

  /** Starts the pacer thread; resolves once it runs, in real time or as an ordinary thread. */
  static async start(options: PacerOptions): Promise<Pacer> {
    const ring = SendRing.create(options.slots ?? 1024)
    const worker = new Worker(workerScript('realtime/media/pacer/pacer-thread.ts', new URL('./pacer-thread.ts', import.meta.url)))
    let timer: ReturnType<typeof setTimeout> | undefined
    const started = new Promise<void>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<{ mode?: PacerMode }>) => (e.data.mode ? resolve() : undefined)
      worker.onerror = (e) => reject(new Error(`the pacer thread failed to start: ${e.message}`))
      timer = setTimeout(() => reject(new Error(`the pacer thread did not start within ${START_LIMIT_MS} ms`)), START_LIMIT_MS)
    })
    worker.postMessage({ buffer: ring.buffer, priority: options.priority })
    try {
      await started
    } catch (err) {
      worker.terminate()
      throw err
    } finally {
      clearTimeout(timer)
    }
    worker.unref()
    const pacer = new Pacer(ring, worker, options.leadMs)
    // a pacer thread that failed sends nothing more: its callers send directly from then on
    worker.onerror = () => {
      pacer.#stopped = true
    }
    return pacer
  }

  get mode(): PacerMode {
    return this.#ring.mode
  }

  /** Packets queued and not yet sent. */
  get pending(): number {
    return this.#ring.pending
  }

  /** Queues `data` for `fd` to send to `address` (a sockaddr) at `dueMs` (this thread's performance.now()). */
  push(fd: number, address: Uint8Array, data: Uint8Array, dueMs: number, owner: PacedOwner): boolean {
    if (this.#stopped) return false
    this.harvest()
    const slot = this.#ring.tail
    // a slot sent but not yet harvested still holds its report: it is not free to reuse
    if (((slot - this.#harvested) | 0) >= this.#ring.slots || !this.#ring.push(fd, address, data, dueMs + this.#offset)) {
      this.overflows++
      return false
    }
    this.#owners[slot & (this.#ring.slots - 1)] = owner
    return true
  }

  /** Reports every packet sent since the last harvest to its owner. */
  harvest(): void {
    const ring = this.#ring
    const head = ring.head
    for (let n = this.#harvested; n !== head; n = (n + 1) | 0) {
      const i = n & (ring.slots - 1)
      const owner = this.#owners[i]
      this.#owners[i] = undefined
      const errno = ring.errorOf(n)
      if (errno !== 0) owner?.failed(errno)
      else owner?.sent(ring.sentAt(n) - ring.dueOf(n))
    }
    this.#harvested = head
  }

  /**
   * Resolves once every packet queued so far has gone out (before a call's socket closes, so
   * none is sent on a descriptor number reused by a later socket). A pacer that does not get
   * there in time is stopped, and callers send directly from then on.
   */
  async settled(): Promise<void> {
    const target = this.#ring.tail
    const limit = performance.now() + SETTLE_LIMIT_MS
    while (!this.#stopped && ((target - this.#ring.head) | 0) > 0) {
      if (performance.now() > limit) {
        // what it still holds must never go out on a descriptor a later socket reuses
        this.#stopped = true
        await this.#worker.terminate()
        return
      }
      await Bun.sleep(1)
    }
    this.harvest()
  }

  /** Sends what is queued, then ends the thread. */
  async stop(): Promise<void> {
    if (!this.#stopped) await this.settled()
    this.#stopped = true
    this.#ring.stop()
    this.#worker.terminate()
  }
}
