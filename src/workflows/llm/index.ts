export { LlmError, OpenAiChatClient, type OpenAiChatOptions } from './openai-chat.ts'
export { intentPrompt, openAiWorkflowLlm, parseIntentAnswer } from './workflow-llm.ts'
