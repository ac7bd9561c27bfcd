// The engines of one call, chosen by its agent: the agent's model on the backend that serves
// it, its voice, its language. Config keys are the defaults the agent did not name.
import type { Config } from '../config.ts'
import { llmRoute, servingFromConfig, type Serving } from '../providers/serving.ts'
import type { ConnOptions } from './base.ts'
import { AnthropicLlm, type Llm, OpenAiLlm } from './llm/index.ts'
import type { Stt, SttStreamOptions } from './stt/index.ts'
import { ElevenLabsTts, FLITE_VOICES, type FliteVoice, FliteTts, OpenAiTts, trimmedTts, type Tts } from './tts/index.ts'

/** What an agent says about its engines (the snapshot's llmModel, voice and language). */
export interface AgentVoice {
  llmModel: string
  voice: { provider: string; voiceId: string; speed: number }
  language: string
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
  conn: ConnOptions,
  /** `tts` gives the appliance's default voice, already trimmed like the agents' voices built here. */
  defaults: { tts(sampleRate: number): Tts; stt: Stt | undefined; sttFor?: (language: string) => Stt },
): { serving: Serving; forAgent(agent: AgentVoice, sampleRate: number): CallEngines } {
  const serving = servingFromConfig(cfg)
  const llms = new Map<string, Llm>()
  const voices = new Map<string, Tts>()

  const llmFor = (model: string): Llm | undefined => {
    const route = llmRoute(model, serving)
    if (!route.ok) return undefined
    const key = `${route.backend}:${route.model}`
    let llm = llms.get(key)
    if (!llm) {
      llm =
        route.backend === 'anthropic'
          ? new AnthropicLlm({ baseUrl: cfg.ANTHROPIC_BASE_URL, apiKey: cfg.ANTHROPIC_API_KEY, model: route.model, conn })
          : new OpenAiLlm({ baseUrl: cfg.LLM_BASE_URL, apiKey: cfg.LLM_API_KEY, model: route.model, conn })
      llms.set(key, llm)
    }
    return llm
  }

  const ttsFor = (v: AgentVoice['voice'], sampleRate: number): Tts | undefined => {
    if (!serving.voice.includes(v.provider)) return undefined
    if (v.provider === 'flite' && !FLITE_VOICES.includes(v.voiceId as FliteVoice)) return undefined
    const key = `${v.provider}:${v.voiceId}:${v.speed}:${sampleRate}`
    let tts = voices.get(key)
    if (!tts) {
      if (v.provider === 'elevenlabs') {
        tts = new ElevenLabsTts({ baseUrl: cfg.ELEVENLABS_BASE_URL, apiKey: cfg.ELEVENLABS_API_KEY, voiceId: v.voiceId, modelId: cfg.ELEVENLABS_MODEL, sampleRate, conn })
      } else if (v.provider === 'openai') {
        tts = new OpenAiTts({ baseUrl: cfg.OPENAI_BASE_URL, apiKey: cfg.OPENAI_API_KEY, model: cfg.OPENAI_TTS_MODEL, voice: v.voiceId, speed: v.speed, sampleRate, conn })
      } else {
        tts = new FliteTts({ voice: v.voiceId as FliteVoice, speed: v.speed, sampleRate, workers: Math.max(1, Math.floor(cfg.FLITE_WORKERS)), idleReleaseMs: cfg.ENGINE_IDLE_RELEASE_MS })
      }
      tts = trimmedTts(tts)
      voices.set(key, tts)
    }
    return tts
  }

  return {
    serving,
    forAgent(agent, sampleRate) {
      const fallbacks: string[] = []
      let tts = ttsFor(agent.voice, sampleRate)
      if (!tts) {
        fallbacks.push(`voice ${agent.voice.provider}/${agent.voice.voiceId} cannot speak here; using the default voice`)
        tts = defaults.tts(sampleRate)
      }
      const stt = defaults.sttFor?.(agent.language) ?? defaults.stt
      return { llm: llmFor(agent.llmModel), tts, stt: stt && inLanguage(stt, agent.language), fallbacks }
    },
  }
}

/** The STT with the agent's language on every stream it opens. */
function inLanguage(stt: Stt, language: string): Stt {
  return {
    provider: stt.provider,
    capabilities: stt.capabilities,
    // OpenAI's transcription takes ISO 639-1 (de), Deepgram and the others BCP 47 (de-DE)
    stream: (opts: SttStreamOptions = {}) => stt.stream({ language: stt.provider === 'openai-stt' ? language.split('-')[0] : language, ...opts }),
  }
}
