import { helperCommand, requireSherpa, workerScript } from '../../../platform/embedded/index.ts'
import type { AudioFrame } from '../audio.ts'
import { ProviderError, ProviderStream } from '../base.ts'
import { AsyncQueue } from '../queue.ts'
import { Resampler } from '../resample.ts'
import type { Stt, SttEvent, SttStreamOptions } from './contract.ts'
import { detectSherpaModel, type SherpaModel } from './sherpa-model.ts'
import { SHERPA_RATE } from './sherpa-onnx-runtime.ts'
import type { SherpaReply, SherpaRequest } from './sherpa-onnx-worker.ts'

export interface SherpaOnnxOptions {
  /** A folder holding one model (see sherpa-model.ts for the layouts). */
  modelDir: string
  /** Silence after words that ends a streaming model's segment with a final. */
  endpointingMs?: number
  /** Threads of the ONNX runtime inside the worker. */
  numThreads?: number
}

/** The runtime's version, or the reason it cannot be loaded on this machine. */
export function sherpaRuntime(): { ok: true; version: string } | { ok: false; error: string } {
  try {
    const sherpa = requireSherpa() as { version: string }
    return { ok: true, version: String(sherpa.version) }
  } catch (err) {
    return { ok: false, error: `sherpa-onnx-node cannot be loaded: ${(err as Error).message.split('\n')[0]}` }
  }
}

type Listener = (r: SherpaReply) => void

/** Loads the model in a child process first: a malformed model makes sherpa-onnx exit the process. */
async function probe(model: SherpaModel, numThreads: number, endpointingMs: number): Promise<void> {
  const child = Bun.spawn(helperCommand('sherpaProbe', JSON.stringify({ model, numThreads, endpointingMs })), {
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
  if (code === 0) return
  // the runtime logs "<source file>:<function>:<line> <message>"
  const reasons = stderr
    .split('\n')
    .map((l) => l.replace(/^\S+\.(cc|h):\w+:\d+ /, '').trim())
    .filter(Boolean)
  throw new Error(`sherpa-onnx could not load the ${model.description} model in ${model.dir}: ${reasons.slice(-3).join('; ') || `exit code ${code}`}`)
}

/**
 * Offline recognition with sherpa-onnx (the sherpa-onnx-node native addon) and a model folder the
 * operator supplies. Streaming models (transducers, streaming paraformer) give interims and a
 * final per segment ended by silence; the others decode one utterance after end().
 */
export class SherpaOnnxStt implements Stt {
  readonly provider = 'sherpa-onnx-stt'
  readonly capabilities: { streaming: boolean; interimResults: boolean; offline: true }
  private readonly listeners = new Map<number, Listener>()
  private nextId = 1
  private dead: string | undefined

  private constructor(
    readonly model: SherpaModel,
    readonly runtimeVersion: string,
    private readonly worker: Worker,
  ) {
    this.capabilities = { streaming: model.streaming, interimResults: model.streaming, offline: true }
    worker.onmessage = (ev: MessageEvent<SherpaReply>) => {
      const r = ev.data
      if ('id' in r) this.listeners.get(r.id)?.(r)
    }
    worker.onerror = (ev) => this.fail(`sherpa-onnx worker crashed: ${ev.message}`)
  }

  /** Detects the model family, loads the runtime and the model in a worker; fails with the reason. */
  static async load(opts: SherpaOnnxOptions): Promise<SherpaOnnxStt> {
    const model = detectSherpaModel(opts.modelDir)
    const runtime = sherpaRuntime()
    if (!runtime.ok) throw new Error(runtime.error)
    const numThreads = opts.numThreads ?? 1
    const endpointingMs = opts.endpointingMs ?? 800
    await probe(model, numThreads, endpointingMs)
    const worker = new Worker(workerScript('realtime/voice/stt/sherpa-onnx-worker.ts', new URL('./sherpa-onnx-worker.ts', import.meta.url)))
    const ready = await new Promise<SherpaReply>((resolve) => {
      worker.onmessage = (ev: MessageEvent<SherpaReply>) => resolve(ev.data)
      worker.onerror = (ev) => resolve({ op: 'failed', error: `sherpa-onnx worker crashed: ${ev.message}` })
      worker.postMessage({ op: 'init', model, numThreads, endpointingMs } satisfies SherpaRequest)
    })
    if (ready.op !== 'ready') {
      worker.terminate()
      throw new Error(ready.op === 'failed' ? ready.error : 'sherpa-onnx worker answered out of turn')
    }
    worker.unref()
    return new SherpaOnnxStt(model, ready.version, worker)
  }

  stream(_opts: SttStreamOptions = {}): SherpaOnnxStream {
    return new SherpaOnnxStream(this)
  }

  /** @internal A channel to the worker for one stream. */
  open(listener: Listener): { id: number; send: (r: SherpaRequest, transfer?: ArrayBuffer[]) => void; release: () => void } {
    const id = this.nextId++
    if (this.dead) {
      queueMicrotask(() => listener({ op: 'error', id, error: this.dead! }))
      return { id, send: () => {}, release: () => {} }
    }
    this.listeners.set(id, listener)
    this.worker.postMessage({ op: 'open', id } satisfies SherpaRequest)
    return {
      id,
      send: (r, transfer) => {
        if (!this.dead) this.worker.postMessage(r, transfer ?? [])
      },
      release: () => {
        this.listeners.delete(id)
      },
    }
  }

  close(): void {
    this.fail('sherpa-onnx engine closed')
    this.worker.terminate()
  }

  private fail(error: string): void {
    this.dead ??= error
    for (const [id, l] of this.listeners) l({ op: 'error', id, error })
    this.listeners.clear()
  }
}

export class SherpaOnnxStream extends ProviderStream<AudioFrame, SttEvent> {
  /** Caller audio pushed so far (what usage reports), before resampling. */
  private audioMs = 0

  constructor(private readonly engine: SherpaOnnxStt) {
    super('sherpa-onnx-stt', { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 })
  }

  protected async attempt(input: AsyncQueue<AudioFrame>, emit: (e: SttEvent) => void, signal: AbortSignal): Promise<void> {
    const replies = new AsyncQueue<SherpaReply>()
    const ch = this.engine.open((r) => replies.push(r))
    const onAbort = () => {
      ch.send({ op: 'drop', id: ch.id })
      replies.close()
    }
    signal.addEventListener('abort', onAbort)
    try {
      const pumping = this.pump(input, ch, signal)
      pumping.catch(() => replies.close())
      for await (const r of replies) {
        if (r.op === 'interim') emit({ type: 'interim', text: r.text })
        else if (r.op === 'final') emit({ type: 'final', text: r.text, confidence: 1, startMs: r.startMs, endMs: r.endMs, endOfTurn: r.endOfTurn })
        else if (r.op === 'error') throw new ProviderError(this.provider, 'protocol', r.error, false)
        else if (r.op === 'done') {
          emit({ type: 'usage', audioMs: Math.round(this.audioMs) })
          return
        }
      }
      await pumping
    } finally {
      signal.removeEventListener('abort', onAbort)
      ch.release()
    }
  }

  /** Caller frames -> 16 kHz float samples -> the worker; then `end`. */
  private async pump(input: AsyncQueue<AudioFrame>, ch: ReturnType<SherpaOnnxStt['open']>, signal: AbortSignal): Promise<void> {
    let resampler: Resampler | undefined
    let rate = 0
    for await (const frame of input) {
      if (signal.aborted) return
      if (rate === 0) {
        rate = frame.sampleRate
        if (rate !== SHERPA_RATE) resampler = new Resampler(rate, SHERPA_RATE)
      } else if (frame.sampleRate !== rate) {
        ch.send({ op: 'drop', id: ch.id })
        throw new ProviderError(this.provider, 'config', 'frames of different sample rates in one stream', false)
      }
      this.audioMs += (frame.samples.length * 1000) / frame.sampleRate
      const pcm = resampler ? resampler.push(frame.samples) : frame.samples
      const samples = new Float32Array(pcm.length)
      for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i]! / 32768
      ch.send({ op: 'audio', id: ch.id, samples }, [samples.buffer])
    }
    if (!signal.aborted) ch.send({ op: 'end', id: ch.id })
  }
}
