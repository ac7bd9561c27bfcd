// The providers feature's public face; its HTTP routes are providers.http.ts.
export { knownLlmModelsHint, LLM_PROVIDERS, llmProviderOf, VOICE_PROVIDERS, voiceProviderOf } from './catalog.ts'
export { defaultLlmModel, defaultVoice, llmRoute, type Serving, servingFromConfig } from './serving.ts'
