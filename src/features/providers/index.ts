// The providers feature's public face: GET /api/providers (providers.http.ts) lists the provider
// registry's catalogue and what this appliance serves; both live in voice/registry.
export { knownLlmModelsHint, LLM_PROVIDERS, llmProviderOf, type Serving, servingFromConfig, VOICE_PROVIDERS, voiceProviderOf, defaultLlmModel, defaultVoice, llmRoute } from '../../realtime/voice/registry/index.ts'
