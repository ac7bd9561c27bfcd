// What the engine asks of a language model: which intent a caller's words express (intent
// edges) and the agent's next line (conversation nodes). The prompts and the reading of the
// answers are pure; the model is the appliance's one Llm, whatever provider serves it.
import type { ChatMessage, Llm } from '../../../realtime/voice/llm/index.ts'

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

/** Index of the intent the caller's utterance expresses, or null for none of them. */
export async function judgeIntent(llm: Llm, req: { utterance: string; intents: string[]; history: ChatMessage[] }): Promise<number | null> {
  const answer = await llm.complete(intentPrompt(req.utterance, req.intents, req.history), { maxTokens: 5 })
  return parseIntentAnswer(answer.text, req.intents.length)
}

/** The agent's next line in a conversation node, given the node's instructions and the talk so far. */
export async function conversationReply(llm: Llm, req: { instructions: string; history: ChatMessage[] }): Promise<string> {
  const answer = await llm.complete([{ role: 'system', content: req.instructions }, ...req.history], { temperature: 0.7 })
  return answer.text
}
