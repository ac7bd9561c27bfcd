import { workerScript } from '../../embedded/index.ts'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { AudioFrame } from '../audio.ts'
import { ProviderError, ProviderStream } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import { Resampler } from '../resample.ts'
import type { Stt, SttEvent, SttStreamOptions } from './contract.ts'
import { DEBIAN_MODEL_DIR, loadNative, type SphinxMode } from './pocketsphinx-ffi.ts'
import type { SphinxAttach, SphinxJob, SphinxRelease, SphinxResult } from './pocketsphinx-worker.ts'
import { IdleRelease } from '../idle.ts'

export interface PocketsphinxOptions {
  /** dictation: the en-us language model (usable on clear 16 kHz audio); digits / yesno: grammars for phone audio. */
  mode: SphinxMode
  modelDir?: string
  /** Free the model after this long unused (0: never); the next utterance or hold() loads it again (0.1-0.3 s). */
  idleReleaseMs?: number
}

export const MAX_SPHINX_UTTERANCE_MS = 60_000

/**
 * Offline recognition with CMU pocketsphinx (Debian libpocketsphinx3 + pocketsphinx-en-us).
 * Not streaming: one stream per utterance, decoded after end() in a worker thread.
 */
/** Jobs to a pocketsphinx worker thread, or to a port of one another thread owns. */
class SphinxLink {
  private readonly pending = new Map<number, (r: SphinxResult) => void>()
  private nextId = 1

  constructor(
    // a Worker and a MessagePort type their handlers differently; both are used the same way here
    private readonly endpoint: { postMessage(m: SphinxJob, transfer: ArrayBuffer[]): void; onmessage: any },
    readonly thread?: Worker,
  ) {
    endpoint.onmessage = (ev: MessageEvent<SphinxResult>) => {
      const done = this.pending.get(ev.data.id)
      this.pending.delete(ev.data.id)
      done?.(ev.data)
    }
  }

  run(job: Omit<SphinxJob, 'id'>): Promise<SphinxResult> {
    const id = this.nextId++
    return new Promise((resolve) => {
      this.pending.set(id, resolve)
      this.endpoint.postMessage({ id, ...job } satisfies SphinxJob, [job.samples.buffer as ArrayBuffer])
    })
  }

  close(): void {
    this.thread?.terminate()
    for (const [id, done] of this.pending) done({ id, ok: false, error: 'pocketsphinx engine closed' })
    this.pending.clear()
  }
}

/** This thread's first own pocketsphinx worker (the one shared with call workers), and a shared one's port. */
let ownWorker: Worker | undefined
let sharedLink: SphinxLink | undefined

/** In a call worker: every PocketsphinxStt of this thread decodes on another thread's worker. */
export function useSharedPocketsphinx(port: MessagePort | undefined): void {
  if (port) sharedLink = new SphinxLink(port)
}

/** A port to this thread's pocketsphinx worker, or undefined when it has none. */
export function sharePocketsphinx(): MessagePort | undefined {
  if (!ownWorker) return undefined
  const { port1, port2 } = new MessageChannel()
  ownWorker.postMessage({ attach: port1 } satisfies SphinxAttach, [port1])
  return port2
}

/**
 * Offline recognition with CMU pocketsphinx (Debian libpocketsphinx3 + pocketsphinx-en-us).
 * Not streaming: one stream per utterance, decoded after end() in a worker thread.
 */
export class PocketsphinxStt implements Stt {
  readonly provider = 'pocketsphinx-stt'
  readonly capabilities = { streaming: false, interimResults: false, offline: true }
  private own: SphinxLink | undefined
  private readonly modelDir: string
  private readonly idle: IdleRelease
  private modelLoaded = false

  constructor(private readonly opts: PocketsphinxOptions) {
    if (!loadNative()) throw new Error('pocketsphinx is not installed (Debian packages libpocketsphinx3 and pocketsphinx-en-us)')
    this.modelDir = opts.modelDir ?? DEBIAN_MODEL_DIR
    if (!existsSync(join(this.modelDir, 'en-us'))) throw new Error(`pocketsphinx model not found in ${this.modelDir} (Debian package pocketsphinx-en-us)`)
    // a call worker's engines decode on the main thread's worker, which frees the model itself
    this.idle = new IdleRelease(opts.idleReleaseMs ?? 0, () => {
      this.modelLoaded = false
      this.own?.thread?.postMessage({ release: true } satisfies SphinxRelease)
    })
    // load the model now (0.1-0.3 s in the worker) rather than during the first caller's turn
    this.hold()()
  }

  /** Whether the model is in memory now (false after an idle release). */
  get loaded(): boolean {
    return this.modelLoaded
  }

  /** Keeps the model loaded (loading it if it was released) until the returned function is called. */
  hold(): () => void {
    const release = this.idle.hold()
    if (!this.modelLoaded) void this.decode(new Int16Array(0))
    return release
  }

  /** True when the libraries and the en-us model are present. */
  static available(modelDir = DEBIAN_MODEL_DIR): boolean {
    return loadNative() !== null && existsSync(join(modelDir, 'en-us'))
  }

  get mode(): SphinxMode {
    return this.opts.mode
  }

  stream(_opts: SttStreamOptions = {}): PocketsphinxStream {
    return new PocketsphinxStream(this)
  }

  /** @internal 16 kHz samples of one utterance to text. */
  decode(samples: Int16Array): Promise<SphinxResult> {
    let link = sharedLink ?? this.own
    if (!link) {
      const worker = new Worker(workerScript('voice/stt/pocketsphinx-worker.ts', new URL('./pocketsphinx-worker.ts', import.meta.url)))
      worker.unref()
      ownWorker ??= worker
      link = this.own = new SphinxLink(worker, worker)
    }
    const release = this.idle.hold()
    this.modelLoaded = true
    return link.run({ mode: this.opts.mode, modelDir: this.modelDir, samples }).finally(release)
  }

  close(): void {
    this.idle.cancel()
    if (this.own?.thread === ownWorker) ownWorker = undefined
    this.own?.close()
    this.own = undefined
  }
}

export class PocketsphinxStream extends ProviderStream<AudioFrame, SttEvent> {
  constructor(private readonly engine: PocketsphinxStt) {
    super('pocketsphinx-stt', { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 })
  }

  protected async attempt(input: AsyncQueue<AudioFrame>, emit: (e: SttEvent) => void, signal: AbortSignal): Promise<void> {
    let resampler: Resampler | undefined
    let rate = 0
    let audioMs = 0
    const chunks: Int16Array[] = []
    for await (const frame of input) {
      if (signal.aborted) return
      if (rate === 0) {
        rate = frame.sampleRate
        // the en-us model is 16 kHz; phone audio is upsampled (its band stays 4 kHz, which grammars tolerate)
        if (rate !== 16000) resampler = new Resampler(rate, 16000)
      } else if (frame.sampleRate !== rate) {
        throw new ProviderError(this.provider, 'config', 'frames of different sample rates in one utterance', false)
      }
      audioMs += (frame.samples.length * 1000) / frame.sampleRate
      if (audioMs > MAX_SPHINX_UTTERANCE_MS) throw new ProviderError(this.provider, 'config', `utterance longer than ${MAX_SPHINX_UTTERANCE_MS} ms`, false)
      chunks.push(resampler ? resampler.push(frame.samples) : frame.samples)
    }
    if (signal.aborted || chunks.length === 0) return
    const samples = new Int16Array(chunks.reduce((n, c) => n + c.length, 0))
    let o = 0
    for (const c of chunks) {
      samples.set(c, o)
      o += c.length
    }
    const result = await this.engine.decode(samples)
    if (signal.aborted) return
    if (!result.ok) throw new ProviderError(this.provider, 'protocol', result.error, false)
    if (result.text) emit({ type: 'final', text: result.text, confidence: 1, startMs: 0, endMs: Math.round(audioMs), endOfTurn: true })
    emit({ type: 'usage', audioMs: Math.round(audioMs) })
  }
}
