import { t } from 'elysia'

export const ACTION_TYPES = ['say', 'note', 'hold', 'resume', 'mute_agent', 'unmute_agent', 'hangup', 'transfer'] as const
export type ActionType = (typeof ACTION_TYPES)[number]

/** say and note carry words; transfer a target; the others nothing. */
export const NEEDS: Record<ActionType, 'text' | 'target' | undefined> = {
  say: 'text', note: 'text', transfer: 'target', hold: undefined, resume: undefined, mute_agent: undefined, unmute_agent: undefined, hangup: undefined,
}

export const ActionBody = t.Object({
  type: t.Union(ACTION_TYPES.map((a) => t.Literal(a)), {
    description: 'say: speak `text` once the agent has finished its current sentence (not interruptible by the caller); note: guidance for the agent\'s next replies, never spoken (LLM agents); hold/resume: the agent paused and the caller hears silence; mute_agent/unmute_agent: the agent goes on but the caller does not hear it; hangup; transfer: cold, to `target`',
  }),
  text: t.Optional(t.String({ minLength: 1, maxLength: 2000, description: 'say and note: the words' })),
  target: t.Optional(t.String({ minLength: 1, maxLength: 256, description: 'transfer: an E.164 number (through the call\'s trunk) or a SIP URI' })),
})
export type ActionBody = typeof ActionBody.static

export const CallActionRecord = t.Object({
  id: t.String(),
  callId: t.String(),
  type: t.String(),
  text: t.Union([t.String(), t.Null()]),
  target: t.Union([t.String(), t.Null()]),
  actor: t.Object({ apiKeyId: t.String(), userId: t.Union([t.String(), t.Null()]) }, { description: 'who asked: the API key and its user' }),
  result: t.Union([t.Literal('done'), t.Literal('refused')]),
  error: t.Union([t.String(), t.Null()], { description: 'why a refused action could not be carried out' }),
  createdAt: t.String({ description: 'when it was asked (ISO 8601)' }),
})
export type CallActionRecord = typeof CallActionRecord.static
