/** Latencies of one conversational turn, in milliseconds; absent when the stage did not run. */
export interface TurnLatency {
  /** VAD end of speech -> turn committed. */
  endpointingMs?: number
  /** VAD end of speech -> STT final. */
  sttFinalMs?: number
  /** LLM request sent -> first token. */
  llmTtftMs?: number
  /** First sentence sent to TTS -> first audio byte. */
  ttsTtfbMs?: number
  /** End of the caller's speech -> first agent audio packet sent. */
  voiceToVoiceMs?: number
}

export const LATENCY_KEYS = ['endpointingMs', 'sttFinalMs', 'llmTtftMs', 'ttsTtfbMs', 'voiceToVoiceMs'] as const

export interface Distribution {
  count: number
  p50: number | null
  p99: number | null
  max: number | null
}

/** Nearest-rank percentile (no interpolation): always one of the measured values. */
export function percentile(values: readonly number[], p: number): number | null {
  if (!(p > 0 && p <= 100)) throw new RangeError('percentile must be in (0, 100]')
  const finite = values.filter(Number.isFinite)
  if (finite.length === 0) return null
  const sorted = [...finite].sort((a, b) => a - b)
  return sorted[Math.ceil((p / 100) * sorted.length) - 1]!
}

export function distribution(values: readonly number[]): Distribution {
  const finite = values.filter(Number.isFinite)
  return {
    count: finite.length,
    p50: percentile(finite, 50),
    p99: percentile(finite, 99),
    max: finite.length ? Math.max(...finite) : null,
  }
}

export type LatencySummary = Record<(typeof LATENCY_KEYS)[number], Distribution>

/** p50/p99 of each latency over a call's turns. */
export function summarizeTurns(turns: readonly TurnLatency[]): LatencySummary {
  const out = {} as LatencySummary
  for (const key of LATENCY_KEYS) {
    out[key] = distribution(turns.flatMap((t) => (t[key] === undefined ? [] : [t[key]!])))
  }
  return out
}
