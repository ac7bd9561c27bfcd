import { requireSherpa } from '../../../platform/embedded/index.ts'
import type { SherpaModel } from './sherpa-model.ts'

/** The rate every sherpa-onnx ASR model is fed at. */
export const SHERPA_RATE = 16000

export interface OnlineStream {
  acceptWaveform(w: { samples: Float32Array; sampleRate: number }): void
  inputFinished(): void
}
export interface Online {
  createStream(): OnlineStream
  isReady(s: OnlineStream): boolean
  decode(s: OnlineStream): void
  isEndpoint(s: OnlineStream): boolean
  reset(s: OnlineStream): void
  getResult(s: OnlineStream): { text: string; start_time?: number }
}
export interface Offline {
  createStream(): OnlineStream
  decode(s: OnlineStream): void
  getResult(s: OnlineStream): { text: string }
}


/** Builds the recognizer for a detected model (in the worker, or in the probe process). */
export function createRecognizer(m: SherpaModel, numThreads: number, endpointingMs: number): { online?: Online; offline?: Offline; version: string } {
  const sherpa = requireSherpa() as any
  const featConfig = { sampleRate: SHERPA_RATE, featureDim: 80 }
  const modelConfig = { ...m.modelConfig, numThreads, provider: 'cpu', debug: 0 }
  const version = String(sherpa.version)
  try {
    if (!m.streaming) return { offline: new sherpa.OfflineRecognizer({ featConfig, modelConfig }) as Offline, version }
    const silenceSec = Math.max(0.1, endpointingMs / 1000)
    const online = new sherpa.OnlineRecognizer({
      featConfig,
      modelConfig,
      decodingMethod: 'greedy_search',
      enableEndpoint: 1,
      // no words for this long: drop the segment; words then this much silence: final
      rule1MinTrailingSilence: Math.max(2.4, silenceSec),
      rule2MinTrailingSilence: silenceSec,
      rule3MinUtteranceLength: 30,
    }) as Online
    return { online, version }
  } catch (err) {
    throw new Error(`sherpa-onnx could not load the ${m.description} model in ${m.dir}: ${(err as Error).message}`)
  }
}
