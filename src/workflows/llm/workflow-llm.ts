import type { ChatMessage, WorkflowLlm } from '../engine/contracts.ts'
import type { OpenAiChatClient } from './openai-chat.ts'

const HISTORY_FOR_INTENT = 6

/** The prompt of the intent judge: numbered intents, answer with one number (0 for none). */
export function intentPrompt(utterance: string, intents: string[], history: ChatMessage[]): ChatMessage[] {
  const recent = history.slice(-HISTORY_FOR_INTENT).map((m) => `${m.role}: ${m.content}`).join('\n')
  return [
    {
      role: 'system',
      content:
        'You classify what a phone caller wants. Intents:\n' +
        intents.map((intent, i) => `${i + 1}. ${intent}`).join('\n') +
        '\nAnswer with only the number of the one intent the caller\'s last message expresses, or 0 if none fits.',
    },
    { role: 'user', content: `${recent ? `Conversation so far:\n${recent}\n\n` : ''}Caller's last message: ${utterance}` },
  ]
}

/** Reads the judge's answer: the first whole number; out of range or missing means none. */
export function parseIntentAnswer(answer: string, count: number): number | null {
  const m = /\d+/.exec(answer)
  if (!m) return null
  const n = Number(m[0])
  return n >= 1 && n <= count ? n - 1 : null
}

/** Workflow LLM over an OpenAI-compatible chat-completions endpoint. */
export function openAiWorkflowLlm(client: OpenAiChatClient): WorkflowLlm {
  return {
    async reply({ instructions, history }) {
      let text = ''
      for await (const delta of client.stream([{ role: 'system', content: instructions }, ...history])) text += delta
      return text
    },
    async judgeIntent({ utterance, intents, history }) {
      const answer = await client.complete(intentPrompt(utterance, intents, history), { maxTokens: 5, temperature: 0 })
      return parseIntentAnswer(answer, intents.length)
    },
  }
}
