import { existsSync, readFileSync } from 'node:fs'
import { BUNDLED_SILERO_MODEL, preloadOnnxRuntime } from '../../embedded/index.ts'
import type { VadModel, VadScorer } from './contract.ts'

export const SILERO_FILE = 'silero_vad_v5.onnx'

type Ort = typeof import('onnxruntime-node')
type Session = import('onnxruntime-node').InferenceSession

const WINDOW: Record<number, number> = { 8000: 256, 16000: 512 }
/** v5 is trained on each window preceded by the tail of the previous one. */
const CONTEXT: Record<number, number> = { 8000: 32, 16000: 64 }

/**
 * Silero VAD v5 through onnxruntime-node; one ONNX session shared by every stream. The runtime
 * runs inference synchronously on the calling thread, and one run costs about the same for one
 * window as for several, so the windows every call completes in one turn of the event loop are
 * scored together in one batched run (same results: each row has its own recurrent state).
 */
export class SileroVad implements VadModel {
  readonly name = 'silero-v5'
  readonly capabilities = { sampleRates: [8000, 16000], learned: true }
  private readonly batches = new Map<number, Batcher>()

  private constructor(
    private readonly ort: Ort,
    private readonly session: Session,
  ) {}

  /** Loads the model shipped with the appliance (or the given file). Fails clearly when it is missing. */
  static async load(modelPath = BUNDLED_SILERO_MODEL): Promise<SileroVad> {
    if (!existsSync(modelPath)) throw new Error(`Silero VAD model not found at ${modelPath}`)
    preloadOnnxRuntime()
    const ort = await import('onnxruntime-node')
    const session = await ort.InferenceSession.create(readFileSync(modelPath), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    })
    return new SileroVad(ort, session)
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
    if (!batch) this.batches.set(sampleRate, (batch = new Batcher(this.ort, this.session, sampleRate, context + window)))
    const b = batch
    const row: Row = { input: new Float32Array(context + window), state: new Float32Array(STATE), resolve: () => {}, reject: () => {} }
    return {
      score(samples: Float32Array): Promise<number> {
        if (samples.length !== window) throw new RangeError(`Silero window must be ${window} samples`)
        row.input.set(samples, context)
        return b.score(row).finally(() => row.input.copyWithin(0, window, context + window))
      },
    }
  }
}

/** Per layer of the model's state: 128 floats per stream, as [2, batch, 128]. */
const STATE = 2 * 128

interface Row {
  input: Float32Array
  state: Float32Array
  resolve(p: number): void
  reject(e: unknown): void
}

class Batcher {
  private pending: Row[] = []
  private readonly sr: import('onnxruntime-node').Tensor

  constructor(
    private readonly ort: Ort,
    private readonly session: Session,
    sampleRate: number,
    private readonly width: number,
  ) {
    this.sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(sampleRate)]), [])
  }

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
    const n = rows.length
    const input = new Float32Array(n * this.width)
    const state = new Float32Array(n * STATE)
    rows.forEach((r, i) => {
      input.set(r.input, i * this.width)
      state.set(r.state.subarray(0, 128), i * 128)
      state.set(r.state.subarray(128), (n + i) * 128)
    })
    try {
      const { Tensor } = this.ort
      const out = await this.session.run({ input: new Tensor('float32', input, [n, this.width]), state: new Tensor('float32', state, [2, n, 128]), sr: this.sr })
      const next = out.stateN!.data as Float32Array
      const p = out.output!.data as Float32Array
      rows.forEach((r, i) => {
        r.state.set(next.subarray(i * 128, (i + 1) * 128), 0)
        r.state.set(next.subarray((n + i) * 128, (n + i + 1) * 128), 128)
        r.resolve(p[i]!)
      })
    } catch (err) {
      for (const r of rows) r.reject(err)
    }
  }
}
