import type { AudioFrame } from '../audio.ts'
import type { ConnOptions, ProviderStream } from '../base.ts'

export interface SttCapabilities {
  /** Results arrive while audio is still being pushed; otherwise one result after end(). */
  streaming: boolean
  interimResults: boolean
  offline: boolean
}

/** Times are milliseconds of audio since the stream began. */
export type SttEvent =
  | { type: 'speech_started'; atMs: number }
  | { type: 'interim'; text: string }
  /** `endOfTurn`: the provider's own endpointing says the speaker finished (Deepgram speech_final). */
  | { type: 'final'; text: string; confidence: number; startMs: number; endMs: number; endOfTurn: boolean }
  | { type: 'utterance_end'; atMs: number }
  /** Audio the provider processed (what it bills). */
  | { type: 'usage'; audioMs: number }

export type SttStream = ProviderStream<AudioFrame, SttEvent>

/**
 * Silence after which a streaming STT with its own endpointing (Deepgram, sherpa-onnx) is asked
 * to finalise the words so far. Short on purpose: the session's endpointing decides when the turn
 * ends (session/hearing.ts); a final this early lets the answer be prepared before then.
 */
export const STT_FINAL_SILENCE_MS = 150

export interface SttStreamOptions {
  language?: string
  /** Words and phrases the caller is likely to say that a general recogniser gets wrong (the agent's vocabulary). */
  vocabulary?: readonly string[]
  /** The agent's own language model for an offline recogniser that takes one (pocketsphinx: stt/agent-lm/). */
  languageModel?: SttLanguageModel
  conn?: ConnOptions
}

/** An agent's language model as files: an ARPA model mixed with the general one, and its dictionary. */
export interface SttLanguageModel {
  arpa: string
  /** The general model's share of each probability (0-1); the agent's model has the rest. */
  generalWeight: number
  /** The general dictionary with the agent's words it lacked. */
  dictionary: string
}

export interface Stt {
  readonly provider: string
  readonly capabilities: SttCapabilities
  stream(opts?: SttStreamOptions): SttStream
}
