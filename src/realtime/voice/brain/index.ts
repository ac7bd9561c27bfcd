// What runs a call's conversation, behind the session's Brain contract. The workflow brain
// lives with the call runtime (it needs the workflow engine); these need only the voice parts.
export { llmBrain } from './llm.ts'
export { noBrain } from './none.ts'
