// The provider registry's public face: every provider of speech and language (list.ts), what
// an entry is (entry.ts) and how the configuration picks the default of each kind and the model
// of workflows (choose.ts), the catalogue the API lists (catalog.ts) and what this appliance
// serves (serving.ts), and what calls cost (prices.ts).
export type * from './entry.ts'
export { withLanguage, withVocabulary } from './entry.ts'
export { choose, type Choice, chosenName, workflowLlm } from './choose.ts'
export { availableVoices, PROVIDERS, providerOf, providerOfEngine, providersOf, servedLlms } from './list.ts'
export { knownLlmModelsHint, LLM_PROVIDERS, llmProviderOf, STT_PROVIDERS, VOICE_PROVIDERS, voiceProviderOf } from './catalog.ts'
export { defaultLlmModel, defaultVoice, llmRoute, type Serving, servingFromConfig } from './serving.ts'
export { LLM_PRICES, type ModelsInUse, priceTableFor, unpricedModels } from './prices.ts'
