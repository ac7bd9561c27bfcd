export * from './contract.ts'
export { DeepgramStt, type DeepgramOptions, DeepgramStream } from './deepgram.ts'
export { MAX_UTTERANCE_MS, OpenAiStt, type OpenAiSttOptions } from './openai.ts'
