import { existsSync } from 'node:fs'
import { BUNDLED_SILERO_MODEL } from '../../../platform/embedded/index.ts'
import { IdleRelease } from '../idle.ts'
import type { VadModel, VadScorer } from './contract.ts'
import { energyProbability } from './energy.ts'
import { SileroHostExited, SileroHostProcess } from './silero-process.ts'
import { SHARED_ROWS, type SharedAreas, STATE_WIDTH } from './silero-wire.ts'

export const SILERO_FILE = 'silero_vad_v5.onnx'

const WINDOW: Record<number, number> = { 8000: 256, 16000: 512 }
/** v5 is trained on each window preceded by the tail of the previous one. */
const CONTEXT: Record<number, number> = { 8000: 32, 16000: 64 }
const STATE = 2 * STATE_WIDTH
/** After a host failed to start, windows are scored by loudness for this long before another start. */
const RETRY_MS = 5000

export interface SileroOptions {
  /** The host process ends after this long unused (0: never); the next window starts a new one. */
  idleReleaseMs?: number
}

/**
 * Silero VAD v5, run by onnxruntime in a host process of its own (silero-host.ts) that ends when
 * nothing has used it for `idleReleaseMs`, so an idle appliance does not keep onnxruntime mapped.
 * One run costs about the same for one window as for several, so the windows every stream
 * completes in one turn of the event loop go to the host as one batch (same results: each row
 * carries its own recurrent state). A host that dies is replaced, and the batch sent again.
 */
export class SileroVad implements VadModel {
  readonly name = 'silero-v5'
  readonly capabilities = { sampleRates: [8000, 16000], learned: true }
  private readonly batches = new Map<number, Batcher>()
  private host: Promise<SileroHostProcess> | undefined
  /** The host once started, to tell whether it is still alive. */
  private started: SileroHostProcess | undefined
  private readonly idle: IdleRelease
  private closed = false
  /** The last host that could not run, while windows are scored by loudness. */
  private failure: { message: string; at: number } | undefined
  private readonly stopping = new Set<Promise<void>>()

  private constructor(
    private readonly modelPath: string,
    host: SileroHostProcess,
    private readonly idleReleaseMs: number,
  ) {
    this.host = Promise.resolve(host)
    this.started = host
    this.idle = new IdleRelease(idleReleaseMs, () => this.stopHost())
    this.idle.arm()
  }

  /** Starts a host on the model shipped with the appliance (or the given file). Fails clearly when it cannot load. */
  static async load(modelPath = BUNDLED_SILERO_MODEL, opts: SileroOptions = {}): Promise<SileroVad> {
    if (!existsSync(modelPath)) throw new Error(`Silero VAD model not found at ${modelPath}`)
    const idleReleaseMs = opts.idleReleaseMs ?? 60_000
    return new SileroVad(modelPath, await SileroHostProcess.start(modelPath, hostIdleExit(idleReleaseMs)), idleReleaseMs)
  }

  /** Whether a host process is running (or starting) now. */
  get loaded(): boolean {
    return this.host !== undefined && (this.started?.alive ?? true)
  }

  /** The running host's process id (for tests). */
  async hostPid(): Promise<number | undefined> {
    return this.host ? (await this.host).pid : undefined
  }

  /** Why windows are scored by loudness now, for /ready; undefined while the host runs. */
  problem(): string | undefined {
    return this.failure && `VAD: the Silero host could not run (${this.failure.message}); the energy VAD scores the windows until it runs again`
  }

  /** Keeps the host running (starting it now if it is not) until the returned function is called. */
  hold(): () => void {
    const release = this.idle.hold()
    void this.running().catch(() => {})
    return release
  }

  /** As hold(), without counting as use (see IdleRelease.keep). */
  keep(): () => void {
    const release = this.idle.keep()
    void this.running().catch(() => {})
    return release
  }

  /** Resolves once the host starting now has loaded the model, or failed to. */
  async ready(): Promise<void> {
    await this.host?.catch(() => {})
  }

  /** Ends the host now unless something holds it; resolves once it has exited. The next window starts another. */
  release(): Promise<void> {
    return this.idle.releaseNow()
  }

  /** Ends the host process for good (the appliance or its call worker is stopping): later windows fail. Resolves once it has exited. */
  async close(): Promise<void> {
    this.closed = true
    this.idle.cancel()
    await this.stopHost()
  }

  windowSamples(sampleRate: number): number {
    const n = WINDOW[sampleRate]
    if (!n) throw new RangeError(`Silero VAD runs at 8000 or 16000 Hz, not ${sampleRate}`)
    return n
  }

  scorer(sampleRate: number): VadScorer {
    const window = this.windowSamples(sampleRate)
    const context = CONTEXT[sampleRate]!
    let batch = this.batches.get(sampleRate)
    if (!batch) this.batches.set(sampleRate, (batch = new Batcher((rows) => this.score(sampleRate, context + window, rows))))
    const b = batch
    const row: Row = { input: new Float32Array(context + window), state: new Float32Array(STATE), probability: 0, resolve: () => {}, reject: () => {} }
    return {
      score(samples: Float32Array): Promise<number> {
        if (samples.length !== window) throw new RangeError(`Silero window must be ${window} samples`)
        row.input.set(samples, context)
        return b.score(row).finally(() => row.input.copyWithin(0, window, context + window))
      },
    }
  }

  private running(): Promise<SileroHostProcess> {
    if (this.closed) return Promise.reject(new Error('Silero VAD is closed'))
    const current = this.host
    if (current) return current
    if (this.failure && Date.now() - this.failure.at < RETRY_MS) return Promise.reject(new Error(this.failure.message))
    const started = SileroHostProcess.start(this.modelPath, hostIdleExit(this.idleReleaseMs))
    this.host = started
    this.started = undefined
    started.then(
      (h) => this.host === started && (this.started = h),
      () => this.host === started && (this.host = undefined),
    )
    return started
  }

  /** Stops the host; close() waits for every stop still under way (an idle release at the same moment), so a thread about to end leaves no host behind. */
  private async stopHost(): Promise<void> {
    const host = this.host
    this.host = undefined
    const stopping = host?.then((h) => h.stop()).catch(() => {})
    if (stopping) this.stopping.add(stopping)
    await stopping
    await Promise.all([...this.stopping])
    if (stopping) this.stopping.delete(stopping)
  }

  /**
   * Batched runs on the host (SHARED_ROWS at a time); a host found dead is replaced once and the
   * batch sent again. When no host can run, the windows are scored by loudness (the energy VAD)
   * rather than failing the calls, and a new host is tried again after RETRY_MS.
   */
  private async score(sampleRate: number, width: number, rows: Row[]): Promise<void> {
    const release = this.idle.hold()
    let from = 0
    try {
      for (; from < rows.length; from += SHARED_ROWS) await this.scorePart(sampleRate, width, rows.slice(from, from + SHARED_ROWS))
      this.failure = undefined
    } catch (err) {
      if (this.closed) throw err
      this.failure = { message: (err as Error).message, at: Date.now() }
      for (const r of rows.slice(from)) r.probability = energyProbability(r.input.subarray(width - this.windowSamples(sampleRate)))
    } finally {
      release()
    }
    for (const r of rows) r.resolve(r.probability)
  }

  private async scorePart(sampleRate: number, width: number, part: Row[]): Promise<void> {
    const n = part.length
    const fill = (a: SharedAreas) =>
      part.forEach((r, i) => {
        a.input.set(r.input, i * width)
        a.state.set(r.state.subarray(0, STATE_WIDTH), i * STATE_WIDTH)
        a.state.set(r.state.subarray(STATE_WIDTH), (n + i) * STATE_WIDTH)
      })
    const take = (a: SharedAreas) =>
      part.forEach((r, i) => {
        r.state.set(a.state.subarray(i * STATE_WIDTH, (i + 1) * STATE_WIDTH), 0)
        r.state.set(a.state.subarray((n + i) * STATE_WIDTH, (n + i + 1) * STATE_WIDTH), STATE_WIDTH)
        r.probability = a.output[i]!
      })
    for (let attempt = 0; ; attempt++) {
      const host = await this.running()
      try {
        return await host.run(n, width, sampleRate, fill, take)
      } catch (err) {
        if (!(err instanceof SileroHostExited) || attempt > 0) throw err
        if (this.host && (await this.host.catch(() => undefined)) === host) this.host = undefined
      }
    }
  }
}

/** The host's own idle exit comes well after this side's release, which normally ends it first. */
const hostIdleExit = (idleReleaseMs: number) => (idleReleaseMs > 0 ? idleReleaseMs + 5000 : 0)

interface Row {
  input: Float32Array
  state: Float32Array
  probability: number
  resolve(p: number): void
  reject(e: unknown): void
}

/** Gathers the rows scored in one turn of the event loop into one run. */
class Batcher {
  private pending: Row[] = []

  constructor(private readonly run: (rows: Row[]) => Promise<void>) {}

  score(row: Row): Promise<number> {
    return new Promise((resolve, reject) => {
      row.resolve = resolve
      row.reject = reject
      if (this.pending.push(row) === 1) setImmediate(() => void this.flush())
    })
  }

  private async flush(): Promise<void> {
    const rows = this.pending
    this.pending = []
    try {
      await this.run(rows)
    } catch (err) {
      for (const r of rows) r.reject(err)
    }
  }
}
