// The offline analysis of a call: extractive summary, lexicon sentiment, voicemail. Pure.
import Sentiment from 'sentiment'
import type { TranscriptItem } from '../calls.model.ts'
import type { AnsweredBy, CallOutcome, CallType } from '../calls.table.ts'
import type { Sentiment as SentimentValue } from '../records/records.table.ts'

export interface AnalysisInput {
  type: CallType
  outcome: CallOutcome | null
  durationSec: number
  transcript: TranscriptItem[]
  /** From answering-machine detection; null when it did not run. */
  answeredBy: AnsweredBy | null
}

export interface AnalysisResult {
  summary: string
  sentiment: SentimentValue
  isVoicemail: boolean
}

const lexicon = new Sentiment()
const SUMMARY_SENTENCES = 3
const MAX_SUMMARY = 500
const STOP = new Set(
  'a an and are as at be but by can do for from have hello hi how i if in is it me my no not of on or our please so that the their there this to us was we what when where which who will with would you your yes okay ok thank thanks'.split(' '),
)
const VOICEMAIL = /\b(leave (me )?a (message|voicemail)|after the (tone|beep)|voice ?mail|mailbox|not available to take your call)\b/i

/** How the summary's first line names each kind of call (a record says which of these it was). */
const CALL_KINDS: Record<CallType, string> = { inbound: 'Inbound call', outbound: 'Outbound call', web: 'Web call', stream: 'Media-stream call', test: 'Agent test call' }

const words = (text: string) => text.toLowerCase().match(/[a-z0-9']+/g) ?? []

/** The caller's sentiment from the AFINN lexicon, over everything the caller said. */
export function callerSentiment(transcript: TranscriptItem[]): SentimentValue {
  const said = transcript.filter((t) => t.role === 'user').map((t) => t.text).join(' ')
  if (!said.trim()) return 'neutral'
  const { comparative } = lexicon.analyze(said)
  return comparative > 0.05 ? 'positive' : comparative < -0.05 ? 'negative' : 'neutral'
}

/**
 * A short extractive summary: one line on the call, then the sentences that carry the most
 * frequent content words of the conversation, in the order they were said.
 */
export function extractiveSummary(input: AnalysisInput): string {
  const head = `${CALL_KINDS[input.type]}, ${input.outcome ?? 'ended'}, ${input.durationSec} s.`
  const sentences = input.transcript.flatMap((t, turn) =>
    (t.text.match(/[^.!?]+[.!?]*/g) ?? []).map((s) => ({ who: t.role === 'user' ? 'Caller' : 'Agent', text: s.trim(), turn })).filter((s) => s.text.length > 0),
  )
  if (!sentences.length) return `${head} Nothing was said.`
  const freq = new Map<string, number>()
  for (const s of sentences) for (const w of words(s.text)) if (!STOP.has(w)) freq.set(w, (freq.get(w) ?? 0) + 1)
  const scored = sentences.map((s, i) => {
    const content = words(s.text).filter((w) => !STOP.has(w))
    const score = content.reduce((n, w) => n + (freq.get(w) ?? 0), 0) / Math.max(3, words(s.text).length) + (s.who === 'Caller' ? 0.5 : 0)
    return { ...s, i, score }
  })
  const picked = [...scored].sort((a, b) => b.score - a.score || a.i - b.i).slice(0, SUMMARY_SENTENCES).sort((a, b) => a.i - b.i)
  const body = picked.map((s) => `${s.who}: ${s.text}`).join(' ')
  const out = `${head} ${body}`
  return out.length > MAX_SUMMARY ? `${out.slice(0, MAX_SUMMARY - 1)}…` : out
}

export function isVoicemail(input: AnalysisInput): boolean {
  if (input.answeredBy) return input.answeredBy === 'machine'
  return input.transcript.some((t) => t.role === 'user' && VOICEMAIL.test(t.text))
}

export function offlineAnalysis(input: AnalysisInput): AnalysisResult {
  return { summary: extractiveSummary(input), sentiment: callerSentiment(input.transcript), isVoicemail: isVoicemail(input) }
}
