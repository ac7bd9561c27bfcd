export * from './contract.ts'
export { ElevenLabsTts, type ElevenLabsOptions } from './elevenlabs.ts'
export { FLITE_VOICES, type FliteOptions, FliteTts, type FliteVoice } from './flite.ts'
export { OpenAiTts, type OpenAiTtsOptions } from './openai.ts'
