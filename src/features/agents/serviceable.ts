// What an agent may name: values the appliance cannot serve are refused when the agent is
// saved (422 naming the field), never discovered on a live call. GET /api/providers lists them.
import type { FieldIssue } from '../../platform/errors.ts'
import { knownLlmModelsHint, llmProviderOf, VOICE_PROVIDERS, voiceProviderOf } from '../providers/index.ts'

export function llmModelIssues(model: string): FieldIssue[] {
  return llmProviderOf(model) ? [] : [{ path: 'llmModel', message: `unknown model '${model}'; use ${knownLlmModelsHint()}` }]
}

/** Cloud providers take any voice id their account has; flite has exactly the voices compiled in. */
export function voiceIssues(voice: { provider: string; voiceId: string }): FieldIssue[] {
  const provider = voiceProviderOf(voice.provider)
  if (!provider) {
    return [{ path: 'voice.provider', message: `unknown voice provider '${voice.provider}'; use one of ${VOICE_PROVIDERS.map((p) => p.id).join(', ')} (see GET /api/providers)` }]
  }
  if (!voice.voiceId) return [{ path: 'voice.voiceId', message: 'is required' }]
  if (!provider.knowsVoice(voice.voiceId)) {
    return [{ path: 'voice.voiceId', message: `${provider.id} has no voice '${voice.voiceId}'; use one of ${provider.voices.join(', ')} (see GET /api/providers)` }]
  }
  return []
}
