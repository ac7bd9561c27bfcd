/**
 * The speech and language providers this appliance knows. Agents name their language model
 * and voice provider from this catalog; GET /api/providers lists it. Which cloud providers
 * have keys is decided at call time: a missing key falls back to the local engines.
 */
export interface LlmProvider {
  id: string
  name: string
  local: boolean
  /** Models accepted as an agent's llmModel. */
  models: string[]
  /** When set, any model written `<modelPrefix><name>` is accepted (self-hosted servers). */
  modelPrefix?: string
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
  { id: 'openai', name: 'OpenAI', local: false, models: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano'] },
  {
    id: 'anthropic',
    name: 'Anthropic',
    local: false,
    models: ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1', 'claude-3-5-haiku-latest'],
  },
  { id: 'groq', name: 'Groq', local: false, models: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant'] },
  {
    id: 'openai-compatible',
    name: 'Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server)',
    local: true,
    models: [],
    modelPrefix: 'openai-compatible/',
  },
]

/** The voices compiled into the appliance's flite: all of them, not examples (kal is 8 kHz, the others 16 kHz). */
export const FLITE_VOICE_IDS = ['slt', 'kal', 'awb', 'rms', 'kal16']

export const VOICE_PROVIDERS: VoiceProvider[] = [
  { id: 'flite', name: 'Flite (on-device, 16 kHz)', local: true, voices: FLITE_VOICE_IDS },
  { id: 'elevenlabs', name: 'ElevenLabs', local: false, voices: ['21m00Tcm4TlvDq8ikWAM', 'EXAVITQu4vr4xnSDxMaL'] },
  { id: 'openai', name: 'OpenAI TTS', local: false, voices: ['alloy', 'ash', 'coral', 'echo', 'nova', 'sage', 'shimmer'] },
]

export const STT_PROVIDERS: SttProvider[] = [
  { id: 'sherpa-onnx', name: 'sherpa-onnx (on-device, operator-supplied model)', local: true },
  { id: 'pocketsphinx', name: 'PocketSphinx (on-device fallback)', local: true },
  { id: 'deepgram', name: 'Deepgram streaming', local: false },
  { id: 'openai', name: 'OpenAI transcription', local: false },
]

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:\/-]{0,127}$/

/** The provider that serves `model`, or undefined when the appliance does not know it. */
export function llmProviderOf(model: string): LlmProvider | undefined {
  for (const p of LLM_PROVIDERS) {
    if (p.models.includes(model)) return p
    if (p.modelPrefix && model.startsWith(p.modelPrefix) && MODEL_NAME.test(model.slice(p.modelPrefix.length))) return p
  }
  return undefined
}

export const voiceProviderOf = (id: string): VoiceProvider | undefined => VOICE_PROVIDERS.find((p) => p.id === id)

export function knownLlmModelsHint(): string {
  const names = LLM_PROVIDERS.flatMap((p) => (p.modelPrefix ? [`${p.modelPrefix}<model>`] : p.models))
  return `one of ${names.join(', ')} (see GET /api/providers)`
}
