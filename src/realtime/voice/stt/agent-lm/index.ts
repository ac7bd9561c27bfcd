// An agent's own language model for the offline recogniser: a bigram of its words, interpolated
// with the general en-us model by the decoder (pocketsphinx-ffi.ts: DecoderOptions.agentLm).
export { bigramArpa, type Bigram } from './arpa.ts'
export { agentLm, lmHash, type AgentLmSummary, type BuildOptions, type BuiltAgentLm } from './build.ts'
export { corpusOf, promptNames, words, type LmSource } from './corpus.ts'
export { cmuPhones, letterToSound } from './pronounce.ts'
