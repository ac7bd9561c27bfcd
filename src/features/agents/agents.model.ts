import { Kind, type TSchema, Type, TypeRegistry } from '@sinclair/typebox'
import { t } from 'elysia'
import { BodyRecord, Name } from '../../platform/schema/index.ts'
import { PaginationQuery } from '../../platform/schema/index.ts'

export const AgentTypeSchema = t.Union([t.Literal('inbound'), t.Literal('outbound')])
export type AgentType = typeof AgentTypeSchema.static
export const AgentRoleSchema = t.Union([t.Literal('reception'), t.Literal('booking'), t.Literal('sales'), t.Literal('followup')])
export type AgentRole = typeof AgentRoleSchema.static
export const WelcomeModeSchema = t.Union([t.Literal('agent_speaks_first'), t.Literal('user_speaks_first')])

export const Welcome = t.Object(
  {
    mode: WelcomeModeSchema,
    message: t.String({ maxLength: 2000, description: 'what the agent says first; may use {{variables}}' }),
    interruptible: t.Boolean({ description: 'the caller may talk over the welcome message' }),
    delayMs: t.Integer({ minimum: 0, maximum: 10_000, description: 'pause after answering before the agent speaks' }),
  },
  { description: 'How a call opens' },
)
export type Welcome = typeof Welcome.static

export const WelcomeInput = t.Object(
  {
    mode: t.Optional(WelcomeModeSchema),
    message: t.Optional(t.String({ maxLength: 2000 })),
    interruptible: t.Optional(t.Boolean()),
    delayMs: t.Optional(t.Integer({ minimum: 0, maximum: 10_000 })),
  },
  { additionalProperties: false, description: 'Replaces the welcome object; omitted members take their defaults' },
)

export const Voice = t.Object(
  {
    provider: t.String({ description: 'a voice provider id from GET /api/providers' }),
    voiceId: t.String({ description: "the provider's voice id" }),
    speed: t.Number({ minimum: 0.5, maximum: 2, description: 'speaking rate, 1 is normal' }),
  },
  { description: 'Text-to-speech voice' },
)
export type Voice = typeof Voice.static

export const ENDPOINTING_PRESETS = ['fast', 'normal', 'patient'] as const
export const ENDPOINTING_MIN_MS = 100
export const ENDPOINTING_MAX_MS = 5000

export const EndpointingSchema = t.Union(
  [
    t.Literal('fast'),
    t.Literal('normal'),
    t.Literal('patient'),
    // TypeBox's own integer: Elysia's t.Integer also takes (and documents) numeric strings
    Type.Integer({ minimum: ENDPOINTING_MIN_MS, maximum: ENDPOINTING_MAX_MS, description: 'the base silence in ms' }),
  ],
  {
    description:
      "how much silence ends the caller's turn: fast, normal (the default) or patient, or an integer of ms (100-5000). " +
      'Presets and numbers alike adapt to the words: shorter after a complete answer, longer after a hesitation',
  },
)

export const isEndpointing = (v: unknown): boolean =>
  (ENDPOINTING_PRESETS as readonly unknown[]).includes(v) || (Number.isInteger(v) && (v as number) >= ENDPOINTING_MIN_MS && (v as number) <= ENDPOINTING_MAX_MS)

// A kind of its own for request bodies: Elysia would turn "800" into 800 for a union holding a
// number, and a union's error names neither the presets nor the range.
const ENDPOINTING_KIND = 'Endpointing'
TypeRegistry.Set(ENDPOINTING_KIND, (_schema, value) => isEndpointing(value))
const EndpointingInput = {
  ...EndpointingSchema,
  [Kind]: ENDPOINTING_KIND,
  error: `must be fast, normal, patient or an integer of milliseconds from ${ENDPOINTING_MIN_MS} to ${ENDPOINTING_MAX_MS}`,
} as unknown as typeof EndpointingSchema

export const MAX_DURATION_MIN_SEC = 10
export const MAX_DURATION_MAX_SEC = 43_200
export const MaxDurationSchema = t.Union([Type.Integer({ minimum: MAX_DURATION_MIN_SEC, maximum: MAX_DURATION_MAX_SEC }), t.Null()], {
  description: `the longest a call may last, in seconds (${MAX_DURATION_MIN_SEC}-${MAX_DURATION_MAX_SEC}); the agent says the goodbye line, then hangs up. null: CALL_MAX_DURATION_MS (30 minutes by default)`,
})
const isMaxDuration = (v: unknown): boolean => v === null || (Number.isInteger(v) && (v as number) >= MAX_DURATION_MIN_SEC && (v as number) <= MAX_DURATION_MAX_SEC)
// its own kind, as endpointing: a numeric string is not taken for a number
const MAX_DURATION_KIND = 'MaxDurationSec'
TypeRegistry.Set(MAX_DURATION_KIND, (_schema, value) => isMaxDuration(value))
const MaxDurationInput = {
  ...MaxDurationSchema,
  [Kind]: MAX_DURATION_KIND,
  error: `must be null or an integer of seconds from ${MAX_DURATION_MIN_SEC} to ${MAX_DURATION_MAX_SEC}`,
} as unknown as typeof MaxDurationSchema

/** The same values as the voice session's EndpointingMode. */
export type Endpointing = typeof EndpointingSchema.static

export const VoiceInput = t.Object(
  {
    provider: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    voiceId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    speed: t.Optional(t.Number({ minimum: 0.5, maximum: 2 })),
  },
  { additionalProperties: false, description: 'Replaces the voice object; omitted members take their defaults' },
)

/**
 * What an agent's owner sets, as responses show it: the one list of an agent's own fields. The
 * row (agents.table.ts), the service's AgentData, the request bodies and the call's AgentSnapshot
 * are derived from it.
 */
export const AgentSettings = t.Object({
  name: t.String(),
  promptDraft: t.String(),
  promptPublished: t.String({ description: 'the prompt calls use' }),
  welcome: Welcome,
  voice: Voice,
  llmModel: t.String(),
  language: t.String({ description: 'BCP 47 language tag' }),
  enabledTools: t.Array(t.String()),
  toolConfigs: t.Record(t.String(), t.Unknown()),
  webhookUrl: t.String({ description: 'post-call webhook URL; empty string when none' }),
  agentType: AgentTypeSchema,
  role: AgentRoleSchema,
  endpointing: EndpointingSchema,
  maxDurationSec: MaxDurationSchema,
  knowledgeBaseIds: t.Array(t.String(), { description: 'knowledge bases its calls search: a workflow answer node, the knowledge_search tool of an LLM' }),
  vocabulary: t.Array(t.String(), { description: "the agent's own words (product names, streets, people): the recognisers listen for them" }),
  knowledgeAutoSearch: t.Boolean({ description: 'an LLM agent: every caller turn is searched and the best passages put before the LLM (else only when it calls knowledge_search)' }),
})
/** The agent's settable state, camel-cased; what the row stores and the snapshot freezes. */
export type AgentData = typeof AgentSettings.static

export const Agent = t.Object({
  id: t.String(),
  workspaceId: t.String(),
  ...AgentSettings.properties,
  variables: t.Array(t.String(), { description: '{{variable}} names used by the prompts and the welcome message' }),
  version: t.Integer({ description: 'grows by one on every change' }),
  publishedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
})
export type Agent = typeof Agent.static

export const MAX_VOCABULARY_ITEMS = 200
export const MAX_VOCABULARY_CHARS = 60

// Tool names are snake_case words; the check against the built-in tools names the known ones.
const TOOL_NAME = '^[a-z][a-z0-9_]{0,63}$'

const fields = {
  name: Name({ minLength: 1, maxLength: 100, notBlank: true }),
  promptDraft: t.String({ maxLength: 100_000 }),
  promptPublished: t.String({ maxLength: 100_000 }),
  welcome: WelcomeInput,
  voice: VoiceInput,
  llmModel: t.String({ minLength: 1, maxLength: 160 }),
  language: t.String({ minLength: 2, maxLength: 35 }),
  enabledTools: t.Array(t.String({ pattern: TOOL_NAME, error: 'is not a tool name (snake_case)', description: 'a built-in tool name' }), { maxItems: 32 }),
  toolConfigs: BodyRecord(TOOL_NAME, t.Unknown({ description: "the tool's config object, checked against its schema" }), {
    maxProperties: 16,
    description: 'tool name -> config object; see the docs for each tool',
  }),
  webhookUrl: t.Union([t.String({ maxLength: 2048 }), t.Null()], { description: 'null or "" removes the webhook' }),
  agentType: AgentTypeSchema,
  role: AgentRoleSchema,
  endpointing: EndpointingInput,
  maxDurationSec: MaxDurationInput,
  knowledgeBaseIds: t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 20, description: 'ids of knowledge bases of the workspace (at most 20)' }),
  knowledgeAutoSearch: t.Boolean(),
  vocabulary: t.Array(t.String({ minLength: 1, maxLength: MAX_VOCABULARY_CHARS, description: 'a word or a phrase of a few words' }), {
    maxItems: MAX_VOCABULARY_ITEMS,
    description: `words and phrases callers say to this agent that a general recogniser gets wrong (at most ${MAX_VOCABULARY_ITEMS})`,
  }),
} satisfies Record<keyof AgentData, TSchema>

const { name, ...optionalFields } = fields

export const CreateAgentBody = t.Object({
  name,
  ...t.Partial(t.Object(optionalFields)).properties,
  template: t.Optional(
    t.Union([t.Literal('receptionist'), t.Literal('booking'), t.Literal('sales'), t.Literal('followup')], {
      description:
        'start from a template: its fields fill what the body leaves out, and its workflow (works offline) is attached; sales and followup are outbound agents',
    }),
  ),
  business: t.Optional(
    Name({
      minLength: 1,
      maxLength: 100,
      notBlank: true,
      description: "with template: the business the template's prompt speaks for, written in place of its {{business}} (else {{business}} stays, for dynamic variables to fill)",
    }),
  ),
})
export type CreateAgentBody = typeof CreateAgentBody.static

export const UpdateAgentBody = t.Partial(t.Omit(CreateAgentBody, ['template', 'business']))
export type UpdateAgentBody = typeof UpdateAgentBody.static

export const ListAgentsQuery = t.Object({
  ...PaginationQuery.properties,
  agentType: t.Optional(AgentTypeSchema),
  role: t.Optional(AgentRoleSchema),
})
export type ListAgentsQuery = typeof ListAgentsQuery.static
