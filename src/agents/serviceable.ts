// What an agent may name: values the appliance cannot serve are refused when the agent is
// saved (422 naming the field), never discovered on a live call. GET /api/providers lists them.
import type { FieldIssue } from '../errors.ts'
import { FLITE_VOICE_IDS, knownLlmModelsHint, llmProviderOf, VOICE_PROVIDERS, voiceProviderOf } from '../providers/index.ts'

export function llmModelIssues(model: string): FieldIssue[] {
  return llmProviderOf(model) ? [] : [{ path: 'llmModel', message: `unknown model '${model}'; use ${knownLlmModelsHint()}` }]
}

/** Cloud providers take any voice id their account has; flite has exactly the voices compiled in. */
export function voiceIssues(voice: { provider: string; voiceId: string }): FieldIssue[] {
  if (!voiceProviderOf(voice.provider)) {
    return [{ path: 'voice.provider', message: `unknown voice provider '${voice.provider}'; use one of ${VOICE_PROVIDERS.map((p) => p.id).join(', ')} (see GET /api/providers)` }]
  }
  if (!voice.voiceId) return [{ path: 'voice.voiceId', message: 'is required' }]
  if (voice.provider === 'flite' && !FLITE_VOICE_IDS.includes(voice.voiceId)) {
    return [{ path: 'voice.voiceId', message: `flite has no voice '${voice.voiceId}'; use one of ${FLITE_VOICE_IDS.join(', ')} (see GET /api/providers)` }]
  }
  return []
}
