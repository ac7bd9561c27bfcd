// A call's metrics as the row stores them, read into the API's shape. Pure.
import { type CallMetrics, TurnMetrics } from '../calls.model.ts'

export const EMPTY_METRICS: CallMetrics = {
  totalTokens: 0, inputTokens: 0, outputTokens: 0, model: '', ttsProvider: '', sttProvider: '',
  ttsDuration: 0, ttsCharacters: 0, sttDuration: 0, latencyP50: 0, latencyP99: 0, turns: [],
}

const TURN_KEYS = Object.keys(TurnMetrics.properties) as (keyof TurnMetrics)[]

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

function storedTurn(turn: unknown): TurnMetrics {
  const t = (turn && typeof turn === 'object' ? turn : {}) as Record<string, unknown>
  const out = {} as TurnMetrics
  for (const key of TURN_KEYS) out[key] = finite(t[key]) ? t[key] : null
  return out
}

/**
 * Rows written before the latencies were always numbers hold null for a call with no measured
 * turn, and turns without the parts measured since: read as 0 and null, as a call ending today
 * would write them. The rows are left as they are (no migration rewrites call records).
 */
export function storedMetrics(parsed: Partial<CallMetrics>): CallMetrics {
  const m = { ...EMPTY_METRICS, ...parsed }
  return {
    ...m,
    latencyP50: finite(m.latencyP50) ? m.latencyP50 : 0,
    latencyP99: finite(m.latencyP99) ? m.latencyP99 : 0,
    turns: Array.isArray(m.turns) ? m.turns.map(storedTurn) : [],
  }
}
