import { type AudioFrame, concatFrames } from '../audio.ts'
import type { ConnOptions, ProviderStream } from '../base.ts'

export interface TtsCapabilities {
  /** Audio arrives while the provider is still synthesizing (first byte before the last). */
  streaming: boolean
  /** Runs with no network. */
  offline: boolean
  /** The rate the engine produces before resampling to the requested output rate. */
  nativeSampleRate: number
}

export type TtsEvent =
  /** 16-bit mono at the engine's configured output rate. */
  | { type: 'audio'; frame: AudioFrame }
  /** Billing figures: characters sent and audio produced. */
  | { type: 'done'; characters: number; audioMs: number }

export type TtsStream = ProviderStream<never, TtsEvent>

/**
 * live: a caller is waiting for it; background: nobody on a call is (a voice preview). An engine
 * that shares a limited pool (flite's workers) serves live syntheses first and lets background
 * ones take only part of the pool; engines without a shared pool ignore it.
 */
export type TtsPriority = 'live' | 'background'

/** One synthesis per sentence: the voice session streams LLM text sentence by sentence. */
export interface Tts {
  readonly provider: string
  readonly capabilities: TtsCapabilities
  /** Output rate of every frame (the call's rate). */
  readonly sampleRate: number
  synthesize(text: string, conn?: ConnOptions, priority?: TtsPriority): TtsStream
}

export const MAX_TTS_CHARS = 4000

/** Collapses whitespace and drops control characters; rejects empty or oversized text. */
export function cleanTtsText(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim()
  if (!clean) throw new RangeError('nothing to say: text is empty')
  if (clean.length > MAX_TTS_CHARS) throw new RangeError(`text too long for one synthesis (${clean.length} > ${MAX_TTS_CHARS} characters)`)
  return clean
}

/** The whole synthesis of `text` as one buffer at the engine's rate (previews, recorded messages). */
export async function synthesizeAll(tts: Tts, text: string, priority: TtsPriority = 'live'): Promise<Int16Array> {
  const frames: AudioFrame[] = []
  for await (const ev of tts.synthesize(text, undefined, priority)) if (ev.type === 'audio') frames.push(ev.frame)
  return concatFrames(frames).samples
}
