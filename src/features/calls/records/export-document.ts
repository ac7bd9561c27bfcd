// The call export document from the stored rows. Pure.
import { csvRow, neutralised } from '../../../platform/csv/index.ts'
import type { CallCost, CallMetrics, TranscriptItem } from '../calls.model.ts'
import type { CallRow } from '../calls.table.ts'
import type { Analysis, Evaluation, ExportDocument } from './records.model.ts'
import type { AnalysisRow, EvaluationRow } from './records.table.ts'
import { storedMetrics } from './stored-metrics.ts'

export interface RecordParts {
  analysis: AnalysisRow | undefined
  evaluations: EvaluationRow[]
  labels: string[]
  recordingUrl: string | null
}

const parse = <T>(text: string, fallback: T): T => {
  try {
    const v = JSON.parse(text)
    return v && typeof v === 'object' ? (v as T) : fallback
  } catch {
    return fallback
  }
}

const money = (n: number) => Math.round(n * 1e6) / 1e6

export function toEvaluation(r: EvaluationRow): Evaluation {
  return {
    id: r.id,
    type: r.type,
    score: r.score,
    evaluatorName: r.evaluator_name,
    comment: r.comment,
    criteria: parse(r.criteria, []),
    createdAt: r.created_at,
  }
}

export function toAnalysis(row: CallRow, a: AnalysisRow | undefined): Analysis {
  const fromDetection = row.answered_by === 'machine'
  if (!a) return { status: 'pending', summary: '', sentiment: null, isVoicemail: fromDetection, model: '', inputTokens: 0, outputTokens: 0, error: null, completedAt: null }
  return {
    status: a.status,
    summary: a.summary,
    sentiment: a.status === 'completed' ? a.sentiment : null,
    isVoicemail: a.status === 'completed' ? a.is_voicemail === 1 : fromDetection,
    model: a.model,
    inputTokens: a.input_tokens,
    outputTokens: a.output_tokens,
    error: a.error,
    completedAt: a.completed_at,
  }
}

export function exportDocument(row: CallRow, parts: RecordParts): ExportDocument {
  const metrics = storedMetrics(parse<Partial<CallMetrics>>(row.metrics, {}))
  const cost = parse<Partial<CallCost>>(row.cost, {})
  const base = { llm: cost.llm ?? 0, tts: cost.tts ?? 0, stt: cost.stt ?? 0, telephony: cost.telephony ?? 0, analysis: cost.analysis ?? 0 }
  return {
    call: {
      id: row.id,
      agentId: row.agent_id ?? '',
      agentName: row.agent_name ?? '',
      type: row.type,
      from: row.from_number,
      to: row.to_number,
      outcome: row.outcome ?? 'failed',
      startedAt: row.started_at ?? row.created_at,
      endedAt: row.ended_at ?? row.created_at,
      duration: row.duration_sec,
      answeredAt: row.answered_at,
      endReason: row.end_reason,
      phoneNumberId: row.phone_number_id,
      campaignId: row.outbound_job_id,
      answeredBy: row.answered_by,
    },
    transcript: parse<TranscriptItem[]>(row.transcript, []),
    metrics,
    cost: { total: money(cost.total ?? base.llm + base.tts + base.stt + base.telephony + base.analysis), ...base, ...(cost.unpriced?.length ? { unpriced: cost.unpriced } : {}) },
    media: row.media ? parse<ExportDocument['media']>(row.media, null) : null,
    recordingUrl: parts.recordingUrl,
    analysis: toAnalysis(row, parts.analysis),
    evaluations: parts.evaluations.map(toEvaluation),
    labels: parts.labels,
  }
}

/**
 * One CSV line per call for spreadsheets: the call, its totals, analysis and labels (each label
 * neutralised on its own, since a reader may split the cell on ;); the transcript as JSON text.
 * Every cell goes through csvRow, which keeps formulas from running.
 */
export const CSV_COLUMNS = [
  'id', 'agentId', 'agentName', 'type', 'from', 'to', 'outcome', 'startedAt', 'endedAt', 'duration',
  'totalTokens', 'model', 'latencyP50', 'latencyP99', 'costTotal', 'costLlm', 'costTts', 'costStt', 'costTelephony', 'costAnalysis', 'costUnpriced',
  'mediaCodec', 'mediaRemote', 'mediaSrtpSuite', 'packetsSent', 'bytesSent', 'packetsReceived', 'bytesReceived', 'packetsLost', 'packetsLate', 'packetsDiscarded', 'jitterMs', 'maxGapMs', 'webFailure',
  'recordingUrl', 'analysisStatus', 'summary', 'sentiment', 'isVoicemail', 'evaluationCount', 'evaluationAverage', 'labels', 'transcript',
] as const

export function csvLine(d: ExportDocument): string {
  const scores = d.evaluations.map((e) => e.score)
  const m = d.media
  const values = [
    d.call.id, d.call.agentId, d.call.agentName, d.call.type, d.call.from, d.call.to, d.call.outcome, d.call.startedAt, d.call.endedAt, d.call.duration,
    d.metrics.totalTokens, d.metrics.model, d.metrics.latencyP50, d.metrics.latencyP99, d.cost.total, d.cost.llm, d.cost.tts, d.cost.stt, d.cost.telephony, d.cost.analysis, (d.cost.unpriced ?? []).map(neutralised).join(';'),
    m?.codec ?? null, m ? `${m.remoteAddress}:${m.remotePort}` : null, m?.srtpSuite ?? null, m?.packetsSent ?? null, m?.bytesSent ?? null, m?.packetsReceived ?? null, m?.bytesReceived ?? null,
    m?.packetsLost ?? null, m?.packetsLate ?? null, m?.packetsDiscarded ?? null, m?.jitterMs ?? null, m?.maxGapMs ?? null, m?.web?.failure ?? null,
    d.recordingUrl, d.analysis.status, d.analysis.summary, d.analysis.sentiment, d.analysis.isVoicemail, scores.length,
    scores.length ? Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 100) / 100 : null, d.labels.map(neutralised).join(';'), JSON.stringify(d.transcript),
  ]
  return csvRow(values)
}
