/**
 * The speech and language providers this appliance knows. Agents name their language model
 * and voice provider from this catalog; GET /api/providers lists it. The voice and STT
 * providers are the registry's (src/realtime/voice/registry/); the language models are named here, each
 * family with the registry backend that serves it.
 */
import type { LlmPrice } from '../turn/cost.ts'
import type { TtsEntry } from './entry.ts'
import { providersOf } from './list.ts'

export interface LlmProvider {
  id: string
  name: string
  local: boolean
  /** Models accepted as an agent's llmModel. */
  models: string[]
  /** When set, any model written `<modelPrefix><name>` is accepted (self-hosted servers). */
  modelPrefix?: string
  /** The registry's LLM provider that runs these models; none for `workflow`. */
  backend?: string
  /** USD list price of each of `models` (a test holds every one priced). */
  prices: Readonly<Record<string, LlmPrice>>
}

export interface VoiceProvider {
  id: string
  name: string
  local: boolean
  /** Example voice ids; cloud providers accept any id their account has. */
  voices: string[]
}

export interface SttProvider {
  id: string
  name: string
  local: boolean
}

// List prices per million tokens as of 2026-12: https://platform.openai.com/docs/pricing (standard
// tier; cached input is what OpenAI's automatic prompt cache bills),
// https://platform.claude.com/docs/en/about-claude/pricing (no prompt caching is asked for),
// https://groq.com/pricing (on demand).
const OPENAI: Record<string, LlmPrice> = {
  'gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
}
const ANTHROPIC: Record<string, LlmPrice> = {
  'claude-sonnet-4-5': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 },
  'claude-opus-4-1': { inputPerMTok: 15, outputPerMTok: 75 },
  'claude-3-5-haiku-latest': { inputPerMTok: 0.8, outputPerMTok: 4 },
}
const GROQ: Record<string, LlmPrice> = {
  'llama-3.3-70b-versatile': { inputPerMTok: 0.59, outputPerMTok: 0.79 },
  'llama-3.1-8b-instant': { inputPerMTok: 0.05, outputPerMTok: 0.08 },
}

export const LLM_PROVIDERS: LlmProvider[] = [
  { id: 'workflow', name: 'Workflow only (deterministic nodes, no language model)', local: true, models: ['workflow'], prices: {} },
  { id: 'openai', name: 'OpenAI', local: false, models: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano'], backend: 'openai', prices: OPENAI },
  {
    id: 'anthropic',
    name: 'Anthropic',
    local: false,
    models: ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1', 'claude-3-5-haiku-latest'],
    backend: 'anthropic',
    prices: ANTHROPIC,
  },
  { id: 'groq', name: 'Groq', local: false, models: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant'], backend: 'openai', prices: GROQ },
  {
    id: 'openai-compatible',
    name: 'Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server)',
    local: true,
    models: [],
    modelPrefix: 'openai-compatible/',
    backend: 'openai',
    // the operator's own server: its models are priced by the operator (VOICE_PRICE_TABLE) or not at all
    prices: {},
  },
]

export const VOICE_PROVIDERS: VoiceProvider[] = providersOf('tts').map((e) => ({ id: e.id, name: e.name, local: e.runs === 'resident', voices: [...e.voices] }))

export const STT_PROVIDERS: SttProvider[] = providersOf('stt').map((e) => ({ id: e.id, name: e.name, local: e.runs === 'resident' }))

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:\/-]{0,127}$/

/** The provider that serves `model`, or undefined when the appliance does not know it. */
export function llmProviderOf(model: string): LlmProvider | undefined {
  for (const p of LLM_PROVIDERS) {
    if (p.models.includes(model)) return p
    if (p.modelPrefix && model.startsWith(p.modelPrefix) && MODEL_NAME.test(model.slice(p.modelPrefix.length))) return p
  }
  return undefined
}

export const voiceProviderOf = (id: string): TtsEntry | undefined => providersOf('tts').find((p) => p.id === id)

export function knownLlmModelsHint(): string {
  const names = LLM_PROVIDERS.flatMap((p) => (p.modelPrefix ? [`${p.modelPrefix}<model>`] : p.models))
  return `one of ${names.join(', ')} (see GET /api/providers)`
}
