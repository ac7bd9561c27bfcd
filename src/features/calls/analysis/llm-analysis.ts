// The LLM analysis of a call: one structured-output request for summary, sentiment, voicemail and
// the rubric's scores. Building the request and reading the answer are pure.
import type { ChatMessage } from '../../../realtime/voice/llm/index.ts'
import type { TranscriptItem } from '../calls.model.ts'
import type { AnalysisResult } from './offline.ts'

export interface Criterion {
  name: string
  description: string
  weight: number
}

export interface LlmAnalysis extends AnalysisResult {
  /** Per criterion, in the rubric's order; empty without a rubric. */
  scores: { name: string; score: number; comment: string }[]
}

export const DEFAULT_ANALYSIS_PROMPT =
  'You review phone calls between an AI voice agent and a caller. Summarize the call in at most three sentences, ' +
  "judge the caller's overall sentiment (positive, neutral or negative), and say whether the call reached a voicemail or answering machine."

export function analysisSchema(criteria: Criterion[]): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['summary', 'sentiment', 'isVoicemail', 'scores'],
    properties: {
      summary: { type: 'string' },
      sentiment: { type: 'string', enum: ['positive', 'neutral', 'negative'] },
      isVoicemail: { type: 'boolean' },
      scores: {
        type: 'array',
        description: criteria.length ? 'one item per criterion, in the order given' : 'empty: no criteria',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'score', 'comment'],
          properties: { name: { type: 'string' }, score: { type: 'number', minimum: 0, maximum: 100 }, comment: { type: 'string' } },
        },
      },
    },
  }
}

export function analysisMessages(prompt: string, transcript: TranscriptItem[], criteria: Criterion[], answeredBy: string | null): ChatMessage[] {
  const rubric = criteria.length
    ? `\n\nScore the agent from 0 (worst) to 100 (best) on each criterion:\n${criteria.map((c, i) => `${i + 1}. ${c.name}: ${c.description}`).join('\n')}`
    : '\n\nThere are no criteria to score; answer scores as [].'
  const detection = answeredBy ? `\nAnswering-machine detection said: ${answeredBy}.` : ''
  const lines = transcript.map((t) => `[${t.timestamp.toFixed(1)} s] ${t.role === 'user' ? 'Caller' : 'Agent'}: ${t.text}`).join('\n')
  return [
    { role: 'system', content: `${prompt || DEFAULT_ANALYSIS_PROMPT}${rubric}` },
    { role: 'user', content: `Transcript:${detection}\n${lines || '(nothing was said)'}` },
  ]
}

/** Checks the model's answer against the schema; throws with what is wrong. */
export function readAnalysis(value: unknown, criteria: Criterion[]): LlmAnalysis {
  const v = value as Record<string, unknown>
  if (!v || typeof v !== 'object') throw new Error('the analysis is not an object')
  if (typeof v.summary !== 'string' || !v.summary.trim()) throw new Error('summary is missing')
  if (v.sentiment !== 'positive' && v.sentiment !== 'neutral' && v.sentiment !== 'negative') throw new Error('sentiment is not positive, neutral or negative')
  if (typeof v.isVoicemail !== 'boolean') throw new Error('isVoicemail is not a boolean')
  const given = Array.isArray(v.scores) ? (v.scores as Record<string, unknown>[]) : []
  const scores = criteria.map((c, i) => {
    const s = given.find((g) => g && g.name === c.name) ?? given[i]
    const score = typeof s?.score === 'number' && Number.isFinite(s.score) ? Math.min(100, Math.max(0, s.score)) : null
    if (score === null) throw new Error(`no score for criterion ${c.name}`)
    return { name: c.name, score, comment: typeof s?.comment === 'string' ? s.comment.slice(0, 2000) : '' }
  })
  return { summary: v.summary.trim().slice(0, 4000), sentiment: v.sentiment, isVoicemail: v.isVoicemail, scores }
}

/** The overall automatic score: the weighted mean of the criteria, to 0.1. */
export function weightedScore(criteria: Criterion[], scores: { score: number }[]): number {
  const total = criteria.reduce((n, c) => n + c.weight, 0)
  if (total <= 0) return 0
  return Math.round((criteria.reduce((n, c, i) => n + c.weight * (scores[i]?.score ?? 0), 0) / total) * 10) / 10
}
