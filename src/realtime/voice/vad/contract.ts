import type { AudioFrame } from '../audio.ts'
import type { ProviderStream } from '../base.ts'
import type { HysteresisParams } from './hysteresis.ts'

/** A VAD model only scores windows; the shared hysteresis machine makes the decisions. */
export interface VadModel {
  readonly name: string
  readonly capabilities: VadCapabilities
  /** Samples per window at `sampleRate`. */
  windowSamples(sampleRate: number): number
  /** A scorer with its own recurrent state, one per audio stream. */
  scorer(sampleRate: number): VadScorer
}

export interface VadCapabilities {
  /** Rates the model accepts; other rates must be resampled first. Empty = any rate. */
  sampleRates: number[]
  /** True when the probability comes from a trained model rather than loudness. */
  learned: boolean
}

export interface VadScorer {
  /** Speech probability of one window of float samples in [-1, 1]. */
  score(window: Float32Array): Promise<number> | number
}

export type VadEvent =
  | { type: 'speech_start'; atMs: number }
  | { type: 'speech_end'; atMs: number; decidedAtMs: number; speechMs: number }
  /** One per window: lets barge-in apply its own minimum speech without a second machine. */
  /** `silenceMs`: the silence run since the last voiced window while speaking (0 while voiced or quiet); it ends at `atMs + windowMs`. */
  | { type: 'progress'; atMs: number; windowMs: number; probability: number; speaking: boolean; speechMs: number; silenceMs: number }

export type VadStream = ProviderStream<AudioFrame, VadEvent>

export type VadOptions = HysteresisParams
