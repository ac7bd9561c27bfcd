// The providers of speech and language this appliance can run: one file each, listed here and
// nowhere else. Within a kind the order is the preference of STT_PROVIDER=auto and
// LLM_PROVIDER=auto, and the order of listings.
import type { Config } from '../../../platform/config/index.ts'
import type { EntryOf, LlmEntry, ProviderEntry, ProviderKind, SttEntry, TtsEntry } from './entry.ts'
import { anthropicLlm } from './llm-anthropic.ts'
import { openAiLlm } from './llm-openai.ts'
import { deepgramStt } from './stt-deepgram.ts'
import { openAiStt } from './stt-openai.ts'
import { pocketsphinxStt } from './stt-pocketsphinx.ts'
import { sherpaOnnxStt } from './stt-sherpa-onnx.ts'
import { elevenLabsTts } from './tts-elevenlabs.ts'
import { fliteTts } from './tts-flite.ts'
import { openAiTts } from './tts-openai.ts'
import { energyVad } from './vad-energy.ts'
import { sileroVad } from './vad-silero.ts'

export const PROVIDERS: readonly ProviderEntry[] = [
  sileroVad,
  energyVad,
  deepgramStt,
  sherpaOnnxStt,
  pocketsphinxStt,
  openAiStt,
  fliteTts,
  elevenLabsTts,
  openAiTts,
  anthropicLlm,
  openAiLlm,
]

export function providersOf<K extends ProviderKind>(kind: K): EntryOf<K>[] {
  return PROVIDERS.filter((e): e is EntryOf<K> => e.kind === kind)
}

export function providerOf<K extends ProviderKind>(kind: K, id: string): EntryOf<K> | undefined {
  return providersOf(kind).find((e) => e.id === id)
}

/** The speech provider whose engines name themselves `engineName` (`deepgram-stt` is `deepgram`). */
export function providerOfEngine(kind: 'stt' | 'tts', engineName: string): SttEntry | TtsEntry | undefined {
  return (kind === 'stt' ? providersOf('stt') : providersOf('tts')).find((e) => e.engineName === engineName)
}

/** The LLM backends this configuration serves, preferred first: the one LLM_PROVIDER names, or with auto each that has what it needs. */
export function servedLlms(cfg: Config): LlmEntry[] {
  const llms = providersOf('llm')
  return cfg.LLM_PROVIDER === 'auto' ? llms.filter((e) => e.auto(cfg)) : llms.filter((e) => e.id === cfg.LLM_PROVIDER)
}

/** The voice providers agents may speak with on this appliance now. */
export const availableVoices = (cfg: Config): TtsEntry[] => providersOf('tts').filter((e) => e.available(cfg))
