import type { AudioFrame } from '../audio.ts'
import { ProviderStream } from '../base.ts'
import type { AsyncQueue } from '../queue.ts'
import type { VadEvent, VadModel } from './contract.ts'
import { type HysteresisParams, INITIAL_VAD_STATE, validateHysteresis, vadStep } from './hysteresis.ts'

/**
 * Push 16-bit frames of any size; get speech_start / speech_end (and a progress event per
 * window). Times are on the audio clock: milliseconds of audio pushed since the stream began.
 */
export class VadStream extends ProviderStream<AudioFrame, VadEvent> {
  private params: HysteresisParams

  constructor(
    private readonly model: VadModel,
    params: HysteresisParams,
  ) {
    super(`vad-${model.name}`, { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 })
    this.params = validateHysteresis({ ...params })
  }

  /** The silence that ends speech, from the next window on: the endpoint adapts it to the caller's words. */
  setMinSilenceMs(ms: number): void {
    if (ms >= 0 && ms !== this.params.minSilenceMs) this.params = { ...this.params, minSilenceMs: ms }
  }

  get minSilenceMs(): number {
    return this.params.minSilenceMs
  }

  protected async attempt(input: AsyncQueue<AudioFrame>, emit: (e: VadEvent) => void, signal: AbortSignal): Promise<void> {
    let sampleRate = 0
    let windowSize = 0
    let scorer: ReturnType<VadModel['scorer']> | undefined
    let window = new Float32Array(0)
    let filled = 0
    let windows = 0
    let state = INITIAL_VAD_STATE
    for await (const frame of input) {
      if (signal.aborted) return
      if (!scorer) {
        sampleRate = frame.sampleRate
        windowSize = this.model.windowSamples(sampleRate)
        scorer = this.model.scorer(sampleRate)
        window = new Float32Array(windowSize)
      } else if (frame.sampleRate !== sampleRate) {
        throw new RangeError(`VAD stream started at ${sampleRate} Hz and got a ${frame.sampleRate} Hz frame`)
      }
      const windowMs = (windowSize * 1000) / sampleRate
      for (let i = 0; i < frame.samples.length; i++) {
        window[filled++] = frame.samples[i]! / 32768
        if (filled < windowSize) continue
        filled = 0
        const atMs = windows * windowMs
        windows++
        const probability = await scorer.score(window)
        if (signal.aborted) return
        const step = vadStep(this.params, state, probability, atMs, windowMs)
        state = step.state
        if (step.decision) emit(step.decision)
        const speaking = state.phase === 'speaking' || state.phase === 'stopping'
        // the silence before a speech_end is not speech: barge-in must not count it
        const voicedUntil = state.phase === 'stopping' ? state.silenceStartMs : atMs + windowMs
        const silenceMs = state.phase === 'stopping' ? atMs + windowMs - state.silenceStartMs : 0
        emit({ type: 'progress', atMs, windowMs, probability, speaking, speechMs: speaking ? voicedUntil - state.speechStartMs : 0, silenceMs })
      }
    }
  }
}

export function createVadStream(model: VadModel, params: HysteresisParams): VadStream {
  return new VadStream(model, params)
}
