export * from './contract.ts'
export { AnthropicLlm, type AnthropicLlmOptions, toAnthropicMessages } from './anthropic.ts'
export { OpenAiLlm, type OpenAiLlmOptions, toOpenAiMessages } from './openai.ts'
export { readSse, SseParser, type SseEvent } from './sse.ts'
