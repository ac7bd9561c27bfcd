/**
 * The one VAD state machine: a model gives a speech probability per window; this turns the
 * probabilities into speech start/end decisions. Pure: time is the audio clock, passed in.
 */
export interface HysteresisParams {
  /** Probability at or above which silence turns into (possible) speech. */
  startThreshold: number
  /** Probability below which ongoing speech counts as silence; at most startThreshold. */
  stopThreshold: number
  /** Voiced audio needed before speech_start is declared. */
  minSpeechMs: number
  /** Silence needed before speech_end is declared. */
  minSilenceMs: number
}

export const DEFAULT_HYSTERESIS: HysteresisParams = { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 100, minSilenceMs: 400 }

export type VadPhase = 'quiet' | 'starting' | 'speaking' | 'stopping'

export interface VadState {
  phase: VadPhase
  /** Audio time the current (possible) speech began. */
  speechStartMs: number
  /** Audio time the current silence run inside speech began. */
  silenceStartMs: number
}

export type VadDecision =
  | { type: 'speech_start'; atMs: number }
  /** `atMs` is where the speech ended; `decidedAtMs` when enough silence had passed to say so. */
  | { type: 'speech_end'; atMs: number; decidedAtMs: number; speechMs: number }

export const INITIAL_VAD_STATE: VadState = { phase: 'quiet', speechStartMs: 0, silenceStartMs: 0 }

export function validateHysteresis(p: HysteresisParams): HysteresisParams {
  const unit = (n: number) => Number.isFinite(n) && n >= 0 && n <= 1
  if (!unit(p.startThreshold) || !unit(p.stopThreshold)) throw new RangeError('VAD thresholds must be between 0 and 1')
  if (p.stopThreshold > p.startThreshold) throw new RangeError('VAD stop threshold must not exceed the start threshold')
  if (!(p.minSpeechMs >= 0) || !(p.minSilenceMs >= 0)) throw new RangeError('VAD durations must be non-negative milliseconds')
  return p
}

/** Advances the machine by one window of `windowMs` starting at audio time `atMs`. */
export function vadStep(
  params: HysteresisParams,
  state: VadState,
  probability: number,
  atMs: number,
  windowMs: number,
): { state: VadState; decision?: VadDecision } {
  const endMs = atMs + windowMs
  switch (state.phase) {
    case 'quiet':
      if (probability < params.startThreshold) return { state }
      if (windowMs >= params.minSpeechMs) {
        return { state: { ...state, phase: 'speaking', speechStartMs: atMs }, decision: { type: 'speech_start', atMs } }
      }
      return { state: { ...state, phase: 'starting', speechStartMs: atMs } }
    case 'starting':
      if (probability < params.stopThreshold) return { state: { ...state, phase: 'quiet' } }
      if (endMs - state.speechStartMs >= params.minSpeechMs) {
        return { state: { ...state, phase: 'speaking' }, decision: { type: 'speech_start', atMs: state.speechStartMs } }
      }
      return { state }
    case 'speaking':
      if (probability >= params.stopThreshold) return { state }
      return silent({ ...state, phase: 'stopping', silenceStartMs: atMs }, params, endMs)
    case 'stopping':
      if (probability >= params.stopThreshold) return { state: { ...state, phase: 'speaking' } }
      return silent(state, params, endMs)
  }
}

function silent(state: VadState, params: HysteresisParams, endMs: number): { state: VadState; decision?: VadDecision } {
  if (endMs - state.silenceStartMs < params.minSilenceMs) return { state }
  return {
    state: { ...state, phase: 'quiet' },
    decision: {
      type: 'speech_end',
      atMs: state.silenceStartMs,
      decidedAtMs: endMs,
      speechMs: state.silenceStartMs - state.speechStartMs,
    },
  }
}
