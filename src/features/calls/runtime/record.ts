// A finished session's report as the call row stores it: transcript, metrics and cost. Pure.
import type { CallCost, CallMetrics, TranscriptItem, TurnMetrics } from '../calls.model.ts'
import type { CallOutcome } from '../calls.table.ts'
import type { EndInfo } from '../../../realtime/telephony/sip/index.ts'
import { sessionCost, type EndReason, type SessionReport } from '../../../realtime/voice/session/index.ts'
import type { PriceTable } from '../../../realtime/voice/turn/index.ts'

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits
const orNull = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? null : round(n, 1))

export function callMetrics(report: SessionReport, engines: { model: string; ttsProvider: string; sttProvider: string }): CallMetrics {
  const inputTokens = report.usage.llm.reduce((n, u) => n + u.inputTokens, 0)
  const outputTokens = report.usage.llm.reduce((n, u) => n + u.outputTokens, 0)
  const v2v = report.latency.voiceToVoiceMs
  return {
    totalTokens: inputTokens + outputTokens,
    inputTokens,
    outputTokens,
    model: engines.model,
    ttsProvider: engines.ttsProvider,
    sttProvider: engines.sttProvider,
    ttsDuration: round(report.usage.tts.reduce((n, u) => n + u.audioMs, 0) / 1000),
    ttsCharacters: report.usage.tts.reduce((n, u) => n + u.characters, 0),
    sttDuration: round(report.usage.stt.reduce((n, u) => n + u.audioMs, 0) / 1000),
    // the spec's latencies are numbers: 0 when no turn was measured, which turns: [] shows
    latencyP50: v2v.p50 === null ? 0 : round(v2v.p50, 1),
    latencyP99: v2v.p99 === null ? 0 : round(v2v.p99, 1),
    turns: report.turns.map(turnMetrics),
  }
}

export function turnMetrics(t: SessionReport['turns'][number]): TurnMetrics {
  return {
    vadHangoverMs: orNull(t.vadHangoverMs),
    endpointingMs: orNull(t.endpointingMs),
    sttFinalMs: orNull(t.sttFinalMs),
    responseMs: orNull(t.responseMs),
    llmTtftMs: orNull(t.llmTtftMs),
    ttsTtfbMs: orNull(t.ttsTtfbMs),
    leadingSilenceMs: orNull(t.leadingSilenceMs),
    voiceToVoiceMs: orNull(t.voiceToVoiceMs),
  }
}

export function callCostOf(report: SessionReport, prices: PriceTable, direction: 'inbound' | 'outbound' | 'web' | 'stream' | 'test', answeredMs: number): CallCost {
  return sessionCost({ ...report, durationMs: answeredMs }, prices, direction)
}

export function transcriptOf(report: SessionReport): TranscriptItem[] {
  return report.transcript.map((t) => ({ role: t.role, text: t.text, timestamp: t.timestamp, ...(t.sources?.length ? { sources: t.sources } : {}), ...(t.interrupted ? { interrupted: true as const } : {}) }))
}

/** The outcome of an answered call from how the session and the SIP dialog ended. */
export function answeredOutcome(session: EndReason | undefined, sip: EndInfo | undefined, transferred: boolean): { outcome: CallOutcome; endReason: string } {
  if (transferred || sip?.reason === 'transferred') return { outcome: 'transferred', endReason: 'transferred' }
  if (session === 'silence_timeout' || session === 'max_duration' || session === 'media_timeout' || session === 'provider_error' || session === 'not_configured') return { outcome: session, endReason: session }
  if (session === 'agent_hangup') return { outcome: 'completed', endReason: 'agent_hangup' }
  if (sip?.reason === 'shutdown') return { outcome: 'shutdown', endReason: 'shutdown' }
  if (sip?.reason === 'no_ack' || sip?.reason === 'timeout') return { outcome: 'failed', endReason: sip.reason }
  return { outcome: 'completed', endReason: session === 'caller_hangup' || sip?.reason === 'remote_hangup' ? 'caller_hangup' : (sip?.reason ?? 'caller_hangup') }
}

/** The outcome of a call that was never answered. */
export function unansweredOutcome(sip: EndInfo): { outcome: CallOutcome; endReason: string } {
  switch (sip.reason) {
    case 'busy':
    case 'no_answer':
    case 'not_found':
    case 'declined':
    case 'cancelled':
      return { outcome: sip.reason, endReason: sip.status ? `${sip.reason} (${sip.status})` : sip.reason }
    case 'shutdown':
      return { outcome: 'shutdown', endReason: 'shutdown' }
    default:
      return { outcome: 'failed', endReason: sip.status ? `failed (${sip.status})` : sip.reason }
  }
}
