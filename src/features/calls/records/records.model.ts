import { t } from 'elysia'
import { CallMetrics, MediaFactsSchema, Outcome, TranscriptItem } from '../calls.model.ts'

export const SentimentSchema = t.Union([t.Literal('positive'), t.Literal('neutral'), t.Literal('negative')])
export const EvaluationTypeSchema = t.Union([t.Literal('manual'), t.Literal('automatic')], {
  description: 'manual: scored by a person through the API; automatic: scored by the LLM against the agent\'s criteria after the call',
})

export const CriterionScore = t.Object({
  name: t.String({ minLength: 1, maxLength: 100 }),
  score: t.Number({ minimum: 0, maximum: 100 }),
  comment: t.Optional(t.String({ maxLength: 2000 })),
})

export const Evaluation = t.Object({
  id: t.String(),
  type: EvaluationTypeSchema,
  score: t.Number({ minimum: 0, maximum: 100, description: '0 (worst) to 100 (best)' }),
  evaluatorName: t.String({ description: "manual: the name given, else the API key's user; automatic: the model" }),
  comment: t.String(),
  criteria: t.Array(CriterionScore, { description: 'per-criterion scores, when given' }),
  createdAt: t.String(),
})
export type Evaluation = typeof Evaluation.static

export const Analysis = t.Object({
  status: t.Union([t.Literal('pending'), t.Literal('completed'), t.Literal('failed')]),
  summary: t.String({ description: "'' until completed" }),
  sentiment: t.Union([SentimentSchema, t.Null()], { description: "the caller's sentiment: positive, neutral or negative; null until completed" }),
  isVoicemail: t.Boolean({ description: 'an answering machine took the call (from answering-machine detection when it ran)' }),
  model: t.String({ description: "the LLM that analysed the call; '' for the offline analysis" }),
  inputTokens: t.Integer({ description: 'LLM tokens of the analysis (costed in cost.analysis)' }),
  outputTokens: t.Integer(),
  error: t.Union([t.String(), t.Null()]),
  completedAt: t.Union([t.String(), t.Null()]),
})
export type Analysis = typeof Analysis.static

export const ExportCost = t.Object(
  {
    total: t.Number(),
    llm: t.Number(),
    tts: t.Number(),
    stt: t.Number(),
    telephony: t.Number(),
    analysis: t.Number({ description: 'the post-call LLM analysis and automatic evaluation' }),
    unpriced: t.Optional(t.Array(t.String(), { description: 'models the call used that have no price, so the numbers leave them out (present only when there are some)' })),
  },
  { description: 'USD; total includes analysis' },
)

export const ExportDocument = t.Object(
  {
    call: t.Object({
      id: t.String(),
      agentId: t.String({ description: "'' when the call had no agent" }),
      agentName: t.String({ description: 'the name when the call took place' }),
      type: t.Union([t.Literal('inbound'), t.Literal('outbound'), t.Literal('web'), t.Literal('stream'), t.Literal('test')]),
      from: t.String({ description: 'E.164 when the party is a phone number, else the SIP user as sent' }),
      to: t.String(),
      outcome: t.Union([Outcome], { description: 'completed: answered and ended normally by either side; the others say why it did not run its course' }),
      startedAt: t.String({ description: 'ISO 8601, UTC' }),
      endedAt: t.String({ description: 'ISO 8601, UTC' }),
      duration: t.Integer({ description: 'whole seconds from answer to end; 0 when never answered' }),
      answeredAt: t.Union([t.String(), t.Null()]),
      endReason: t.Union([t.String(), t.Null()]),
      phoneNumberId: t.Union([t.String(), t.Null()]),
      campaignId: t.Union([t.String(), t.Null()], { description: 'the outbound job that placed the call' }),
      answeredBy: t.Union([t.Literal('human'), t.Literal('machine'), t.Literal('unknown'), t.Null()]),
    }),
    transcript: t.Array(TranscriptItem),
    metrics: CallMetrics,
    cost: ExportCost,
    media: t.Union([MediaFactsSchema, t.Null()], { description: "the call's media diagnostics (as GET /api/calls/:id); null for calls that had no media" }),
    recordingUrl: t.Union([t.String(), t.Null()], {
      description: 'signed link to the WAV (no API key needed) valid for RECORDING_URL_TTL_SEC; null when not recorded or the recording was deleted',
    }),
    analysis: Analysis,
    evaluations: t.Array(Evaluation),
    labels: t.Array(t.String()),
  },
  { description: 'The call export document: one ended call for archiving or analytics' },
)
export type ExportDocument = typeof ExportDocument.static

export const Label = t.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f\\u007f]+$', description: '1-64 characters, no control characters' })
export const LabelsBody = t.Object({ labels: t.Array(Label, { maxItems: 50, description: 'at most 50 per call' }) })
export const LabelParams = t.Object({ id: t.String(), label: t.String() })

export const EvaluationBody = t.Object({
  score: t.Number({ minimum: 0, maximum: 100, description: '0 (worst) to 100 (best)' }),
  evaluatorName: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  comment: t.Optional(t.String({ maxLength: 5000 })),
  criteria: t.Optional(t.Array(CriterionScore, { maxItems: 50 })),
})
export type EvaluationBody = typeof EvaluationBody.static
