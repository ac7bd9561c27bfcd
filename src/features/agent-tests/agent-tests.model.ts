// A test case of an agent: a scripted caller (what it says, keys it presses, when it is quiet or
// cuts in), the voice it speaks with, and what the agent is expected to do. Request bodies are
// checked by these schemas; checks across fields are validate.ts.
import { t } from 'elysia'
import { Guarded, Name } from '../../platform/schema/index.ts'

export const MAX_TURNS = 50
export const MAX_EXPECTATIONS = 50
export const MAX_CASES_PER_AGENT = 200

const Text = (description: string) => t.String({ minLength: 1, maxLength: 2000, description })
const Pattern = t.String({ minLength: 1, maxLength: 300, description: 'a JavaScript regular expression' })
const Flags = t.Optional(t.String({ pattern: '^[imsu]*$', maxLength: 4, description: 'regex flags among i, m, s, u' }))

export const SayTurn = t.Object({ type: t.Literal('say'), text: Text('what the caller says, spoken in its voice') }, { additionalProperties: false })
export const KeysTurn = t.Object(
  { type: t.Literal('keys'), digits: t.String({ pattern: '^[0-9*#A-D]{1,32}$', description: 'keys pressed (RFC 4733 events)' }) },
  { additionalProperties: false },
)
export const SilenceTurn = t.Object(
  { type: t.Literal('silence'), ms: t.Integer({ minimum: 100, maximum: 60_000, description: 'the caller stays quiet this long' }) },
  { additionalProperties: false },
)
export const InterruptTurn = t.Object(
  {
    type: t.Literal('interrupt'),
    text: Text('what the caller says into the agent\'s speech'),
    afterMs: t.Optional(t.Integer({ minimum: 0, maximum: 30_000, description: 'default 500: how long after the agent starts speaking the caller cuts in' })),
  },
  { additionalProperties: false },
)
export const Turn = t.Union([SayTurn, KeysTurn, SilenceTurn, InterruptTurn], { description: 'one step of the scripted caller' })
export type Turn = typeof Turn.static

export const CALLER_ENGINES = ['espeak-ng', 'festival', 'flite'] as const
export const CallerVoice = t.Object(
  {
    engine: t.Union([t.Literal('espeak-ng'), t.Literal('festival'), t.Literal('flite')], { description: 'an offline engine of the appliance' }),
    voice: t.Optional(t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+.-]+$', description: "the engine's voice, e.g. en-us (espeak-ng), kal_diphone (festival), slt (flite)" })),
    phoneBand: t.Optional(t.Boolean({ description: 'default false: through a 300-3400 Hz phone line' })),
    noiseSnrDb: t.Optional(t.Number({ minimum: 0, maximum: 60, description: 'white noise mixed in at this signal-to-noise ratio' })),
  },
  { additionalProperties: false, description: "the caller's voice; must differ from the agent's" },
)
export type CallerVoice = typeof CallerVoice.static
export const DEFAULT_CALLER_VOICE: CallerVoice = { engine: 'espeak-ng', voice: 'en-us', phoneBand: false }

export const Caller = t.Object(
  {
    turns: t.Array(Turn, { minItems: 1, maxItems: MAX_TURNS, description: 'taken in order; each say or keys turn waits for the agent to finish speaking' }),
    voice: t.Optional(CallerVoice),
  },
  { additionalProperties: false },
)
export type Caller = typeof Caller.static

const AtTurn = t.Optional(t.Integer({ minimum: 0, maximum: 1000, description: "the agent's nth utterance (0 = the greeting); absent: anywhere in the call" }))
export const Expectation = t.Union(
  [
    t.Object({ type: t.Literal('said'), phrase: t.Optional(Text('text the agent says (case and punctuation ignored)')), pattern: t.Optional(Pattern), flags: Flags, turn: AtTurn }, { additionalProperties: false, description: 'the agent said a phrase, or text matching a pattern (one of the two)' }),
    t.Object({ type: t.Literal('node_reached'), nodeId: t.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false, description: 'the workflow reached this node' }),
    t.Object({ type: t.Literal('path'), nodes: t.Array(t.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 200 }) }, { additionalProperties: false, description: 'the workflow visited exactly these nodes, in order' }),
    t.Object({ type: t.Literal('tool_called'), tool: t.String({ minLength: 1, maxLength: 100 }), arguments: t.Optional(Guarded(t.Record(t.String(), t.Unknown()), 'must be an object')) }, { additionalProperties: false, description: 'the agent called this tool; arguments, when given, are each matched' }),
    t.Object({ type: t.Literal('transferred'), target: t.Optional(t.String({ minLength: 1, maxLength: 256 })) }, { additionalProperties: false, description: 'the call was transferred (to this target)' }),
    t.Object({ type: t.Literal('ended'), outcome: t.Optional(t.String({ minLength: 1, maxLength: 40 })) }, { additionalProperties: false, description: 'the call ended (with this outcome)' }),
    t.Object({ type: t.Literal('knowledge_used'), passage: t.Optional(Text('text the passage holds')) }, { additionalProperties: false, description: 'a knowledge passage (holding this text) was spoken from' }),
    t.Object({ type: t.Literal('response_gap_p95'), maxMs: t.Integer({ minimum: 1, maximum: 60_000 }) }, { additionalProperties: false, description: "the 95th percentile of the agent's response gaps is at most maxMs" }),
  ],
  { description: 'what the agent is expected to do' },
)
export type Expectation = typeof Expectation.static

export const CaseInput = t.Object({
  name: Name({ minLength: 1, maxLength: 200, notBlank: true }),
  caller: Caller,
  expectations: t.Array(Expectation, { minItems: 1, maxItems: MAX_EXPECTATIONS }),
})
export type CaseInput = typeof CaseInput.static

export const CasePatch = t.Object(
  { name: t.Optional(CaseInput.properties.name), caller: t.Optional(Caller), expectations: t.Optional(CaseInput.properties.expectations) },
  { description: 'replaces the fields given; the others stay' },
)
export type CasePatch = typeof CasePatch.static

export const AgentTestCase = t.Object({
  id: t.String(),
  agentId: t.String(),
  name: t.String(),
  caller: t.Object({ turns: t.Array(Turn), voice: CallerVoice }),
  expectations: t.Array(Expectation),
  /** 'api' (written by the operator), 'workflow' or 'knowledge' (generated from the agent's workflow or an FAQ of its knowledge bases). */
  source: t.Union([t.Literal('api'), t.Literal('workflow'), t.Literal('knowledge')]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
})
export type AgentTestCase = typeof AgentTestCase.static
