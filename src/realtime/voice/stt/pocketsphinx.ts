import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import type { AudioFrame } from '../audio.ts'
import { ProviderError, ProviderStream } from '../base.ts'
import { AsyncQueue } from '../queue.ts'
import { Resampler } from '../resample.ts'
import type { Stt, SttEvent, SttLanguageModel, SttStreamOptions } from './contract.ts'
import { DEBIAN_MODEL_DIR, loadNative, type SphinxMode } from './pocketsphinx-ffi.ts'
import { type Listener, type SphinxChannel, SphinxLink, sharedSphinxLink, startSphinxWorker } from './pocketsphinx-link.ts'
import type { SphinxKind, SphinxReply } from './pocketsphinx-worker.ts'
import { IdleRelease } from '../idle.ts'

export { sharePocketsphinx, useSharedPocketsphinx } from './pocketsphinx-link.ts'

export interface PocketsphinxOptions {
  /** dictation: the en-us language model (usable on clear 16 kHz audio); digits / yesno: grammars for phone audio. */
  mode: SphinxMode
  modelDir?: string
  /** Free the model after this long unused (0: never); the next utterance or hold() loads it again (0.1-0.3 s). */
  idleReleaseMs?: number
  /** Utterances decoded at once per thread, each on its own decoder (~90 MB for dictation); more wait their turn. Default 6. */
  maxDecoders?: number
  /**
   * Decoder threads (default: one per core, at most 4): utterances go to the least busy, and
   * call workers share them in turn. One thread keeps up with about four callers talking at once.
   */
  threads?: number
}

export const MAX_SPHINX_UTTERANCE_MS = 60_000

/** Caller audio gathered into one message while the worker has not yet acknowledged the last one. */
const MAX_BATCH_MS = 100

/**
 * Offline recognition with CMU pocketsphinx (Debian libpocketsphinx3 + pocketsphinx-en-us).
 * One stream per utterance, decoded in a worker thread while the caller speaks, so that after
 * end() only the end of the utterance remains; interim words come every ~160 ms of audio.
 */
export class PocketsphinxStt implements Stt {
  readonly provider = 'pocketsphinx-stt'
  readonly capabilities = { streaming: false, interimResults: true, offline: true }
  private own: SphinxLink[] = []
  private readonly threads: number
  private readonly kind: SphinxKind
  private readonly idle: IdleRelease
  private modelLoaded = false
  /** The loads asked for last, answered once every decoder thread has its model. */
  private loading: Promise<void> = Promise.resolve()
  /** Why the last load failed; undefined once one succeeds. */
  private failure: string | undefined

  constructor(private readonly opts: PocketsphinxOptions) {
    if (!loadNative()) throw new Error('pocketsphinx is not installed (Debian packages libpocketsphinx3 and pocketsphinx-en-us)')
    const modelDir = opts.modelDir ?? DEBIAN_MODEL_DIR
    if (!existsSync(join(modelDir, 'en-us'))) throw new Error(`pocketsphinx model not found in ${modelDir} (Debian package pocketsphinx-en-us)`)
    this.kind = { mode: opts.mode, modelDir, maxDecoders: Math.max(1, Math.floor(opts.maxDecoders ?? 6)) }
    this.threads = Math.max(1, Math.floor(opts.threads ?? Math.min(4, availableParallelism())))
    // a call worker's engines decode on the main thread's worker, which frees the model itself
    this.idle = new IdleRelease(opts.idleReleaseMs ?? 0, () => {
      this.modelLoaded = false
      for (const link of this.own) link.send({ release: true })
    })
    // load the model now (0.1-0.3 s in the worker) rather than during the first caller's turn
    this.hold()()
  }

  /** Whether the model is in memory now (false after an idle release). */
  get loaded(): boolean {
    return this.modelLoaded
  }

  /** Why the model could not be loaded the last time it was, or undefined. */
  problem(): string | undefined {
    return this.failure && `STT: pocketsphinx could not load its model (${this.failure})`
  }

  /** Keeps the model loaded (loading it if it was released) until the returned function is called. */
  hold(): () => void {
    const release = this.idle.hold()
    this.load()
    return release
  }

  /** As hold(), without counting as use: a call worker shares the decoder threads while it runs (see IdleRelease.keep). */
  keep(): () => void {
    const release = this.idle.keep()
    this.load()
    return release
  }

  /** Resolves once every decoder thread has answered the last load (problem() says whether one failed). */
  ready(): Promise<void> {
    return this.loading
  }

  /** Frees the model now unless something holds it. */
  release(): Promise<void> {
    return this.idle.releaseNow()
  }

  /** Every decoder thread loads now, or the first caller it serves waits for the model. */
  private load(): void {
    if (this.modelLoaded) return
    this.modelLoaded = true
    this.failure = undefined
    this.link()
    const links = this.own.length ? this.own : [this.link()]
    this.loading = Promise.all(links.map((link) => this.loadOn(link))).then(() => {})
  }

  private loadOn(link: SphinxLink): Promise<void> {
    return new Promise((resolve) => {
      const { sid, forget } = link.listen((r) => {
        if (r.op !== 'loaded' && r.op !== 'error') return
        forget()
        if (r.error) this.failure = r.error
        resolve()
      })
      link.send({ op: 'load', sid, ...this.kind })
    })
  }

  /** True when the libraries and the en-us model are present. */
  static available(modelDir = DEBIAN_MODEL_DIR): boolean {
    return loadNative() !== null && existsSync(join(modelDir, 'en-us'))
  }

  get mode(): SphinxMode {
    return this.opts.mode
  }

  stream(opts: SttStreamOptions = {}): PocketsphinxStream {
    return new PocketsphinxStream(this, opts.languageModel)
  }

  /** @internal Opens one utterance in the worker; the model stays loaded until the channel closes. */
  open(listener: Listener, narrowband: boolean, agentLm?: SttLanguageModel): SphinxChannel {
    const link = this.link()
    const release = this.idle.hold()
    this.modelLoaded = true
    const { sid, forget } = link.listen(listener)
    // an agent's model serves dictation only: grammars are the same for every agent
    link.send({ op: 'open', sid, narrowband, ...this.kind, ...(agentLm && this.kind.mode === 'dictation' && { agentLm }) })
    let open = true
    return {
      sid,
      send: (m, transfer) => {
        if (open) link.send(m, transfer)
      },
      close: (drop) => {
        if (!open) return
        open = false
        if (drop) link.send({ op: 'drop', sid })
        forget()
        release()
      },
    }
  }

  /** The least busy decoder thread (all of them started at once, so call workers can share each). */
  private link(): SphinxLink {
    const shared = sharedSphinxLink()
    if (shared) return shared
    // a crashed worker is replaced by the next utterance
    for (const dead of this.own.filter((l) => l.dead)) dead.close()
    this.own = this.own.filter((l) => !l.dead)
    while (this.own.length < this.threads) this.own.push(startSphinxWorker())
    return this.own.reduce((best, l) => (l.openStreams < best.openStreams ? l : best))
  }

  close(): void {
    this.idle.cancel()
    for (const link of this.own) link.close()
    this.own = []
  }
}

export class PocketsphinxStream extends ProviderStream<AudioFrame, SttEvent> {
  private consumedMs = 0
  private lateFrames: number | undefined

  constructor(
    private readonly engine: PocketsphinxStt,
    private readonly agentLm?: SttLanguageModel,
  ) {
    super('pocketsphinx-stt', { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 })
  }

  /** Caller audio (ms) the decoder has consumed so far. */
  get decodedMs(): number {
    return this.consumedMs
  }

  /** 10 ms frames the worker still had to decode when the end reached it (0: caught up); set with the final. */
  get framesAfterEnd(): number | undefined {
    return this.lateFrames
  }

  protected async attempt(input: AsyncQueue<AudioFrame>, emit: (e: SttEvent) => void, signal: AbortSignal): Promise<void> {
    const replies = new AsyncQueue<SphinxReply>()
    const out = new Outbox()
    let ch: SphinxChannel | undefined
    let done = false
    const onAbort = () => replies.close()
    signal.addEventListener('abort', onAbort)
    const pump = async () => {
      let resampler: Resampler | undefined
      let rate = 0
      for await (const frame of input) {
        if (signal.aborted) return
        if (rate === 0) {
          rate = frame.sampleRate
          // the en-us model is 16 kHz; phone audio is upsampled (its band stays 4 kHz, which grammars tolerate)
          if (rate !== 16000) resampler = new Resampler(rate, 16000)
          ch = this.engine.open((r) => replies.push(r), rate <= 8000, this.agentLm)
        } else if (frame.sampleRate !== rate) {
          throw new ProviderError(this.provider, 'config', 'frames of different sample rates in one utterance', false)
        }
        const audioMs = out.audioMs + (frame.samples.length * 1000) / frame.sampleRate
        if (audioMs > MAX_SPHINX_UTTERANCE_MS) throw new ProviderError(this.provider, 'config', `utterance longer than ${MAX_SPHINX_UTTERANCE_MS} ms`, false)
        out.add(resampler ? resampler.push(frame.samples) : frame.samples, audioMs)
        if (this.consumedMs >= out.sentMs || out.pendingMs >= MAX_BATCH_MS) out.flush(ch!, 'audio')
      }
      if (signal.aborted) return
      if (ch) out.flush(ch, 'end')
      else replies.close()
    }
    const pumping = pump()
    pumping.catch((err) => replies.fail(err))
    try {
      for await (const r of replies) {
        if (r.op === 'fed') {
          this.consumedMs = r.audioMs
          if (r.interim) emit({ type: 'interim', text: r.interim })
          if (this.consumedMs >= out.sentMs) out.flush(ch!, 'audio')
        } else if (r.op === 'final') {
          done = true
          this.consumedMs = out.audioMs
          this.lateFrames = r.framesAfterEnd
          const endMs = Math.round(out.audioMs)
          if (r.text) emit({ type: 'final', text: r.text, confidence: 1, startMs: 0, endMs, endOfTurn: true })
          emit({ type: 'usage', audioMs: endMs })
          return
        } else if (r.op === 'error') {
          done = true
          throw new ProviderError(this.provider, 'protocol', r.error, false)
        }
      }
      await pumping
    } finally {
      signal.removeEventListener('abort', onAbort)
      ch?.close(!done)
    }
  }
}

/** 16 kHz audio not yet sent to the worker, and how far the caller's audio has been sent. */
class Outbox {
  private chunks: Int16Array[] = []
  private pendingSamples = 0
  /** Caller audio pushed, and sent, so far (ms). */
  audioMs = 0
  sentMs = 0

  add(samples: Int16Array, audioMs: number): void {
    this.chunks.push(samples)
    this.pendingSamples += samples.length
    this.audioMs = audioMs
  }

  get pendingMs(): number {
    return this.audioMs - this.sentMs
  }

  /** Sends what is pending (as a copy: a caller's frame may be shared with its VAD). */
  flush(ch: SphinxChannel, op: 'audio' | 'end'): void {
    if (op === 'audio' && this.pendingMs <= 0) return
    const samples = new Int16Array(this.pendingSamples)
    let o = 0
    for (const c of this.chunks) {
      samples.set(c, o)
      o += c.length
    }
    this.chunks = []
    this.pendingSamples = 0
    this.sentMs = this.audioMs
    ch.send({ op, sid: ch.sid, samples, audioMs: this.audioMs }, [samples.buffer])
  }
}
