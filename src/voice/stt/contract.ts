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

export interface SttStreamOptions {
  language?: string
  /** Silence after which a provider with its own endpointing says the turn ended (the agent's setting). */
  endpointingMs?: number
  conn?: ConnOptions
}

export interface Stt {
  readonly provider: string
  readonly capabilities: SttCapabilities
  stream(opts?: SttStreamOptions): SttStream
}
