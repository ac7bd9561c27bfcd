// The provider registry's public face: every provider of speech and language (list.ts), what
// an entry is (entry.ts) and how the configuration picks the default of each kind and the model
// of workflows (choose.ts).
export type * from './entry.ts'
export { withLanguage } from './entry.ts'
export { choose, type Choice, chosenName, workflowLlm } from './choose.ts'
export { availableVoices, PROVIDERS, providerOf, providersOf, servedLlms } from './list.ts'
