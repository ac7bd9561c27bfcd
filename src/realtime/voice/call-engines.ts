// The engines of one call, chosen by its agent: the agent's model on the backend that serves
// it, its voice, its language. Config keys are the defaults the agent did not name.
import type { Config } from '../../platform/config/index.ts'
import { llmRoute, servingFromConfig, type Serving } from './registry/index.ts'
import type { Llm } from './llm/index.ts'
import { type Provided, providerOf, withLanguage, withVocabulary } from './registry/index.ts'
import type { Stt } from './stt/index.ts'
import { trimmedTts, type Tts } from './tts/index.ts'

/** What an agent says about its engines (the snapshot's llmModel, voice and language). */
export interface AgentVoice {
  llmModel: string
  voice: { provider: string; voiceId: string; speed: number }
  language: string
  /** Words its callers say that a general recogniser gets wrong. */
  vocabulary?: readonly string[]
}

export interface CallEngines {
  /** Undefined when no configured backend serves the agent's model. */
  llm: Llm | undefined
  tts: Tts
  stt: Stt | undefined
  /** Why a default replaced what the agent asked for (for the call log). */
  fallbacks: string[]
}

export function callEnginesFactory(
  cfg: Config,
  /** `tts` gives the appliance's default voice, already trimmed like the agents' voices built here. */
  defaults: { tts(sampleRate: number): Tts; stt: Provided<Stt> | undefined },
): { serving: Serving; forAgent(agent: AgentVoice, sampleRate: number): CallEngines } {
  const serving = servingFromConfig(cfg)
  const llms = new Map<string, Llm>()
  const voices = new Map<string, Tts>()

  const llmFor = (model: string): Llm | undefined => {
    const route = llmRoute(model, serving)
    if (!route.ok) return undefined
    const key = `${route.backend}:${route.model}`
    let llm = llms.get(key)
    if (!llm) llms.set(key, (llm = providerOf('llm', route.backend)!.fromConfig(cfg, { model: route.model }).engine))
    return llm
  }

  const ttsFor = (v: AgentVoice['voice'], sampleRate: number): Tts | undefined => {
    const entry = providerOf('tts', v.provider)
    if (!entry || !serving.voice.includes(v.provider) || !entry.knowsVoice(v.voiceId)) return undefined
    const key = `${v.provider}:${v.voiceId}:${v.speed}:${sampleRate}`
    let tts = voices.get(key)
    if (!tts) voices.set(key, (tts = trimmedTts(entry.fromConfig(cfg, { voiceId: v.voiceId, speed: v.speed, sampleRate }).engine)))
    return tts
  }

  const stt = defaults.stt
  return {
    serving,
    forAgent(agent, sampleRate) {
      const fallbacks: string[] = []
      let tts = ttsFor(agent.voice, sampleRate)
      if (!tts) {
        fallbacks.push(`voice ${agent.voice.provider}/${agent.voice.voiceId} cannot speak here; using the default voice`)
        tts = defaults.tts(sampleRate)
      }
      const spoken = stt && (stt.forLanguage?.(agent.language) ?? withLanguage(stt.engine, agent.language))
      const heard = spoken && withVocabulary(spoken, agent.vocabulary ?? [])
      return { llm: llmFor(agent.llmModel), tts, stt: heard, fallbacks }
    },
  }
}
