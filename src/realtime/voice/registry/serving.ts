// What this appliance can serve with its configuration: which language-model backends and
// voices have what they need. Pure: the same answer for agent readiness and for a live call.
import type { Config } from '../../../platform/config/index.ts'
import { availableVoices, providerOf, servedLlms } from './list.ts'
import { LLM_PROVIDERS, llmProviderOf } from './catalog.ts'

export interface Serving {
  /** LLM backends (registry ids) with what they need (a key, or a self-hosted base URL), preferred first. */
  llm: string[]
  /** Voice providers that can speak now (flite always). */
  voice: string[]
}

export function servingFromConfig(cfg: Config): Serving {
  return { llm: servedLlms(cfg).map((e) => e.id), voice: availableVoices(cfg).map((e) => e.id) }
}

/** How an agent's llmModel is reached: the backend and the model name it is sent as. */
export type LlmRoute = { ok: true; backend: string; model: string } | { ok: false; problem: string }

export function llmRoute(model: string, serving: Serving): LlmRoute {
  const provider = llmProviderOf(model)
  if (!provider) return { ok: false, problem: `the model '${model}' is not one the appliance knows (see GET /api/providers)` }
  if (!provider.backend) return { ok: false, problem: `llmModel is '${model}': the agent has no language model` }
  const { backend } = provider
  if (!serving.llm.includes(backend)) {
    const needs = providerOf('llm', backend)?.needs
    const none = serving.llm.length === 0 ? 'no LLM is configured' : `the configured LLM cannot serve '${model}'`
    return { ok: false, problem: `${none}: ${model} needs ${needs}` }
  }
  const name = provider.modelPrefix ? model.slice(provider.modelPrefix.length) : model
  return { ok: true, backend, model: name }
}

/** The llmModel a new agent gets when it names none: the configured default model. */
export function defaultLlmModel(cfg: Config, fallback: string): string {
  const [backend] = servedLlms(cfg)
  const wanted = backend?.defaultModel(cfg) ?? fallback
  if (llmProviderOf(wanted)) return wanted
  // a model the catalog does not name, on a backend that takes any model under a prefix
  const open = backend && LLM_PROVIDERS.find((p) => p.backend === backend.id && p.modelPrefix)
  return open ? `${open.modelPrefix}${wanted}` : fallback
}

/** The voice a new agent gets when it names none: the configured TTS engine and its voice. */
export function defaultVoice(cfg: Config): { provider: string; voiceId: string; speed: number } {
  const entry = providerOf('tts', cfg.TTS_PROVIDER) ?? providerOf('tts', 'flite')!
  return { provider: entry.id, voiceId: entry.defaultVoiceId(cfg), speed: 1 }
}
