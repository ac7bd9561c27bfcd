/**
 * Latencies of one conversational turn, in milliseconds; absent when the stage did not run.
 * "Speech end" is the caller's last voiced audio as it reached the appliance (the VAD's speech
 * end moved back by the jitter buffer's delay), not the moment the VAD decided it.
 * The parts add up: voiceToVoiceMs = endpointingMs + responseMs + leadingSilenceMs.
 */
export interface TurnLatency {
  /** Speech end -> the silence the endpoint waits for was over (or the STT said the turn ended). Part of endpointingMs. */
  vadHangoverMs?: number
  /** Speech end -> turn committed (the hangover, then any wait for the STT final). */
  endpointingMs?: number
  /** Speech end -> STT final (may come before the hangover is over). */
  sttFinalMs?: number
  /** Turn committed -> first agent audio frame sent (the brain, LLM and TTS inside). */
  responseMs?: number
  /** LLM request sent -> first token. Part of responseMs. */
  llmTtftMs?: number
  /** First sentence sent to TTS -> first audio byte. Part of responseMs. */
  ttsTtfbMs?: number
  /** First agent frame sent -> first voiced agent frame sent (silence TTS put before the words). */
  leadingSilenceMs?: number
  /** Speech end -> first voiced agent audio frame sent: what the caller waits. */
  voiceToVoiceMs?: number
}

export const LATENCY_KEYS = ['vadHangoverMs', 'endpointingMs', 'sttFinalMs', 'responseMs', 'llmTtftMs', 'ttsTtfbMs', 'leadingSilenceMs', 'voiceToVoiceMs'] as const

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
