/**
 * The speech and language providers this appliance knows. Agents name their language model
 * and voice provider from this catalog; GET /api/providers lists it. The voice and STT
 * providers are the registry's (src/realtime/voice/registry/); the language models are named here, each
 * family with the registry backend that serves it.
 */
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

export const LLM_PROVIDERS: LlmProvider[] = [
  { id: 'workflow', name: 'Workflow only (deterministic nodes, no language model)', local: true, models: ['workflow'] },
  { id: 'openai', name: 'OpenAI', local: false, models: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano'], backend: 'openai' },
  {
    id: 'anthropic',
    name: 'Anthropic',
    local: false,
    models: ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1', 'claude-3-5-haiku-latest'],
    backend: 'anthropic',
  },
  { id: 'groq', name: 'Groq', local: false, models: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant'], backend: 'openai' },
  {
    id: 'openai-compatible',
    name: 'Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server)',
    local: true,
    models: [],
    modelPrefix: 'openai-compatible/',
    backend: 'openai',
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
