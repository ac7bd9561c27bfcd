// The flite worker threads of one thread (or the ports to another thread's, in a call worker).
import { workerScript } from '../../../platform/embedded/index.ts'
import { IdleRelease } from '../idle.ts'
import type { TtsPriority } from './contract.ts'
import type { FliteAttach, FliteJob, FliteReady, FliteResult } from './flite-worker.ts'

/**
 * Background syntheses (voice previews) this pool runs at once; the rest wait in the pool, so a
 * live synthesis posted meanwhile reaches a worker before them and waits at most for the one in
 * progress, and with two workers or more one is always free of previews.
 */
const MAX_BACKGROUND = 1

/**
 * A shared flite thread that has not answered a job for this long is taken for dead: one
 * synthesis takes 20-150 ms of CPU, so this leaves room for a long queue on a busy machine.
 */
export const SHARED_REPLY_MS = 8_000

/** A flite worker thread, or a port to one that another thread owns (shared with a call worker). */
type Endpoint = Pick<Worker, 'postMessage' | 'onmessage'> & { terminate?(): void; close?(): void; addEventListener?(type: string, fn: () => void): void }

interface Entry {
  worker: Endpoint
  load: number
  thread?: Worker
  /** A thread of this pool that has not yet said it is ready (compiled and warmed up). */
  warming?: boolean
}

/** Ports to another thread's flite workers; `warn` hears of each one lost. */
export interface SharedPorts {
  ports: MessagePort[]
  warn?: (message: string) => void
  /** Overrides SHARED_REPLY_MS. */
  replyMs?: number
}

interface Pending {
  job: FliteJob
  entry: Entry
  resolve(r: FliteResult): void
  timer?: ReturnType<typeof setTimeout>
}

/**
 * One pool per process: each worker holds a compiled flite module and one instance (together
 * about 70 MB). A job goes to the worker with the least work: one still warming up or readying
 * its instance after a job would make the caller wait for that first. Idle for `idleMs`, the
 * workers stop (their memory goes back to the system) and the next job or hold() starts them
 * again in 0.2-0.3 s. A call worker's pool is made of ports to the main thread's workers; when
 * one closes (its thread ended) or stops answering, its jobs go to the other ports, and with none
 * left to a pool of this thread's own (with a warning), so the caller still hears the agent.
 */
export class FlitePool {
  private readonly workers: Entry[] = []
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private turn = 0
  private background = 0
  private readonly backgroundQueue: (() => void)[] = []
  private readonly idle: IdleRelease
  private readonly shared: boolean
  private readonly warn: (message: string) => void
  private readonly replyMs: number
  private own: FlitePool | undefined
  /** Resolves once the threads started last are ready, or one failed. */
  private warm: { done: Promise<void>; resolve(): void } | undefined
  /** The threads being terminated, until they have ended. */
  private ending: Promise<void> = Promise.resolve()
  /** Why the pool cannot synthesize (a worker failed to load or crashed); jobs then fail at once. */
  broken: string | undefined

  constructor(
    private readonly size: number,
    private readonly idleMs: number,
    shared?: SharedPorts,
  ) {
    this.shared = shared !== undefined
    this.warn = shared?.warn ?? (() => {})
    this.replyMs = shared?.replyMs ?? SHARED_REPLY_MS
    this.idle = new IdleRelease(shared ? 0 : idleMs, () => this.terminate())
    if (shared) for (const port of shared.ports) this.add(port as Endpoint, 0)
    else this.hold()()
  }

  /** True while the workers are running (loaded or loading). */
  get loaded(): boolean {
    return this.workers.length > 0 || (this.own?.loaded ?? false)
  }

  /** Keeps the workers running (starting them if they were stopped) until the returned function is called. */
  hold(): () => void {
    if (this.shared) return this.own?.hold() ?? (() => {})
    this.start()
    return this.idle.hold()
  }

  /** As hold(), without counting as use (see IdleRelease.keep): another thread shares the workers while it runs. */
  keep(): () => void {
    if (this.shared) return () => {}
    this.start()
    return this.idle.keep()
  }

  /** Resolves once the workers started last have compiled flite and spoken their warm-up, or one of them failed (`broken` says why). */
  ready(): Promise<void> {
    return this.warm?.done ?? Promise.resolve()
  }

  /** Stops the workers now unless something holds or keeps them; resolves once their threads have ended. Another thread's, shared, are its to stop. */
  async release(): Promise<void> {
    if (this.shared) return this.own?.release()
    await this.idle.releaseNow()
    await this.ending
  }

  private start(): void {
    if (this.workers.length > 0) return
    let resolve!: () => void
    this.warm = { done: new Promise<void>((r) => (resolve = r)), resolve }
    for (let i = 0; i < Math.max(1, this.size); i++) {
      const thread = new Worker(workerScript('realtime/voice/tts/flite-worker.ts', new URL('./flite-worker.ts', import.meta.url)))
      thread.onerror = (ev) => this.fail(`flite worker failed: ${ev.message}`)
      thread.unref()
      this.add(thread, 1, thread)
    }
  }

  private add(worker: Endpoint, load: number, thread?: Worker): void {
    // a shared worker has warmed up in its owner's thread already
    const entry: Entry = { worker, load, thread, warming: thread !== undefined }
    entry.worker.onmessage = (ev: MessageEvent<FliteResult | FliteReady>) => {
      if ('ready' in ev.data) {
        entry.load--
        if (entry.warming) {
          entry.warming = false
          if (!this.workers.some((w) => w.warming)) this.warm?.resolve()
        }
        return
      }
      const p = this.pending.get(ev.data.id)
      this.pending.delete(ev.data.id)
      if (p?.timer) clearTimeout(p.timer)
      p?.resolve(ev.data)
    }
    // Bun closes a port whose other end's thread ended
    if (!thread) entry.worker.addEventListener?.('close', () => this.lost(entry, 'its port closed'))
    this.workers.push(entry)
  }

  private fail(reason: string): void {
    this.broken = reason
    this.warm?.resolve()
    for (const [id, p] of this.pending) p.resolve({ id, ok: false, error: reason })
    this.pending.clear()
  }

  /** A shared flite thread is gone or mute: its jobs go elsewhere. */
  private lost(entry: Entry, why: string): void {
    const at = this.workers.indexOf(entry)
    if (at < 0) return
    this.workers.splice(at, 1)
    entry.worker.onmessage = null
    entry.worker.close?.()
    const left = this.workers.length
    this.warn(`a shared flite thread was lost (${why}); ${left ? `${left} left` : "this thread loads flite threads of its own"}`)
    for (const [id, p] of this.pending) {
      if (p.entry !== entry) continue
      this.pending.delete(id)
      if (p.timer) clearTimeout(p.timer)
      void this.post(p.job.text, p.job.voice, p.job.speed).then(p.resolve)
    }
  }

  /** Background jobs wait here for a free slot (first come, first served); live ones never do. */
  async run(text: string, voice: string, speed: number, priority: TtsPriority = 'live'): Promise<FliteResult> {
    if (priority === 'live') return this.post(text, voice, speed)
    if (this.background >= MAX_BACKGROUND) await new Promise<void>((resolve) => this.backgroundQueue.push(resolve))
    else this.background++
    try {
      return await this.post(text, voice, speed)
    } finally {
      // the slot passes straight to the next in line, so no newcomer slips in between
      const next = this.backgroundQueue.shift()
      if (next) next()
      else this.background--
    }
  }

  private post(text: string, voice: string, speed: number): Promise<FliteResult> {
    if (this.shared && this.workers.length === 0) {
      this.own ??= new FlitePool(1, this.idleMs)
      return this.own.run(text, voice, speed)
    }
    const id = this.nextId++
    if (this.broken) return Promise.resolve({ id, ok: false, error: this.broken })
    const release = this.hold()
    let best = this.workers[this.turn++ % this.workers.length]!
    for (const w of this.workers) if (w.load < best.load) best = w
    best.load++
    const job: FliteJob = { id, text, voice, speed }
    const entry = best
    return new Promise<FliteResult>((resolve) => {
      const p: Pending = { job, entry, resolve }
      if (this.shared) p.timer = setTimeout(() => this.lost(entry, `no answer within ${this.replyMs} ms`), this.replyMs)
      this.pending.set(id, p)
      entry.worker.postMessage(job)
    }).finally(release)
  }

  /** New ports to this pool's worker threads, for another thread to share them (see useSharedFlite). */
  connect(): MessagePort[] {
    return this.workers.flatMap((w) => {
      if (!w.thread) return []
      const { port1, port2 } = new MessageChannel()
      w.thread.postMessage({ attach: port1 } satisfies FliteAttach, [port1])
      return [port2]
    })
  }

  /** Stops the workers (whatever holds them); resolves once their threads have ended. */
  terminate(): Promise<void> {
    this.idle.cancel()
    const ending = this.workers.map((w) => (w.thread ? w.thread.terminate() : w.worker.close?.()))
    this.workers.length = 0
    this.warm?.resolve()
    this.ending = Promise.all([this.ending, ...ending, this.own?.terminate()]).then(() => {})
    return this.ending
  }
}
