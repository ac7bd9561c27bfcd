// What this appliance can serve with its configuration: which language-model backends and
// voices have what they need. Pure: the same answer for agent readiness and for a live call.
import { type Config, CONFIG_KEYS } from '../config.ts'
import { llmProviderOf } from './catalog.ts'

export type LlmBackend = 'openai' | 'anthropic'

export interface Serving {
  /** Backends with what they need (a key, or a self-hosted base URL). */
  llm: LlmBackend[]
  /** Voice providers that can speak now (flite always). */
  voice: string[]
}

export type ServingConfig = Pick<
  Config,
  'LLM_PROVIDER' | 'LLM_BASE_URL' | 'LLM_API_KEY' | 'ANTHROPIC_API_KEY' | 'ELEVENLABS_API_KEY' | 'OPENAI_API_KEY'
>

export function servingFromConfig(cfg: ServingConfig): Serving {
  const selfHosted = cfg.LLM_API_KEY !== '' || cfg.LLM_BASE_URL !== CONFIG_KEYS.LLM_BASE_URL.default
  let llm: LlmBackend[]
  if (cfg.LLM_PROVIDER === 'none') llm = []
  else if (cfg.LLM_PROVIDER === 'openai') llm = ['openai']
  else if (cfg.LLM_PROVIDER === 'anthropic') llm = ['anthropic']
  else llm = [...(cfg.ANTHROPIC_API_KEY ? ['anthropic' as const] : []), ...(selfHosted ? ['openai' as const] : [])]
  const voice = ['flite', ...(cfg.ELEVENLABS_API_KEY ? ['elevenlabs'] : []), ...(cfg.OPENAI_API_KEY ? ['openai'] : [])]
  return { llm, voice }
}

/** How an agent's llmModel is reached: the backend and the model name it is sent as. */
export type LlmRoute = { ok: true; backend: LlmBackend; model: string } | { ok: false; problem: string }

export function llmRoute(model: string, serving: Serving): LlmRoute {
  const provider = llmProviderOf(model)
  if (!provider) return { ok: false, problem: `the model '${model}' is not one the appliance knows (see GET /api/providers)` }
  if (provider.id === 'workflow') return { ok: false, problem: "llmModel is 'workflow': the agent has no language model" }
  const backend: LlmBackend = provider.id === 'anthropic' ? 'anthropic' : 'openai'
  if (!serving.llm.includes(backend)) {
    const needs = backend === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'LLM_BASE_URL or LLM_API_KEY (an OpenAI-compatible server)'
    const none = serving.llm.length === 0 ? 'no LLM is configured' : `the configured LLM cannot serve '${model}'`
    return { ok: false, problem: `${none}: ${model} needs ${needs}` }
  }
  const name = provider.modelPrefix ? model.slice(provider.modelPrefix.length) : model
  return { ok: true, backend, model: name }
}

/** The llmModel a new agent gets when it names none: the configured default model. */
export function defaultLlmModel(cfg: ServingConfig & Pick<Config, 'LLM_MODEL' | 'ANTHROPIC_MODEL'>, fallback: string): string {
  const [backend] = servingFromConfig(cfg).llm
  const wanted = backend === 'anthropic' ? cfg.ANTHROPIC_MODEL : backend === 'openai' ? cfg.LLM_MODEL : fallback
  if (llmProviderOf(wanted)) return wanted
  return backend === 'openai' ? `openai-compatible/${wanted}` : fallback
}

/** The voice a new agent gets when it names none: the configured TTS engine and its voice. */
export function defaultVoice(cfg: Pick<Config, 'TTS_PROVIDER' | 'FLITE_VOICE' | 'ELEVENLABS_VOICE_ID' | 'OPENAI_TTS_VOICE'>): { provider: string; voiceId: string; speed: number } {
  const voiceId = cfg.TTS_PROVIDER === 'elevenlabs' ? cfg.ELEVENLABS_VOICE_ID : cfg.TTS_PROVIDER === 'openai' ? cfg.OPENAI_TTS_VOICE : cfg.FLITE_VOICE
  return { provider: ['elevenlabs', 'openai'].includes(cfg.TTS_PROVIDER) ? cfg.TTS_PROVIDER : 'flite', voiceId, speed: 1 }
}
