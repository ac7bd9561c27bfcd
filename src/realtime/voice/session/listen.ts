import { type AudioFrame, isVoiced, rmsDbfs } from '../audio.ts'
import type { SttStream } from '../stt/contract.ts'
import type { TurnInput } from '../turn/controller.ts'
import type { HysteresisParams } from '../vad/hysteresis.ts'
import { DEFAULT_ONSET, LineOnset, type OnsetParams } from '../vad/onset.ts'
import { createVadStream, type VadStream } from '../vad/stream.ts'
import type { SessionEngines, SessionUsage } from './types.ts'

const PREROLL_MS = 250
/** Voice at the VAD's start threshold this long is a possible start of speech: the agent is held for it. */
export const ONSET_MS = 60
/** Frames kept to reopen a per-utterance STT where a pause ended: a little more than the longest pause that splits one. */
const KEEP_MS = 1000
/** A pause this long inside speech ends a per-utterance STT's utterance, so its final is ready before the endpoint. */
export function sttPauseMs(silenceTargetMs: number): number {
  return Math.max(100, Math.min(180, silenceTargetMs - 120))
}

export interface ListenerEvents {
  /** VAD and STT findings for the turn controller, on the session clock. */
  input(input: TurnInput): void
  /** The caller started (true) or stopped (false) speaking; `atMs` on the session clock. */
  speaking(on: boolean, atMs: number): void
  /** The VAD or STT is gone for good: the caller can no longer be heard. */
  failed(provider: string, error: string): void
}

/**
 * The caller's side: VAD on every frame, STT either streaming the whole call or opened per
 * utterance (with a short pre-roll so the first syllable is not lost).
 */
export class Listener {
  private readonly vad: VadStream
  private stt: SttStream | undefined
  /** Recent caller frames with their audio time (ms into the caller's stream). */
  /** `voiced` is worked out when a speech end asks for it, not for every frame that comes in. */
  private readonly recent: { atMs: number; frame: AudioFrame; voiced?: boolean }[] = []
  private audioMs = 0
  private audioStartAt: number | undefined
  /** How long the caller's audio waited in the jitter buffer before it was pushed here. */
  private inputDelayMs = 0
  /** A per-utterance STT ended at a pause; reopened from `pausedAtMs` (audio time) if speech goes on. */
  private pausedAtMs: number | undefined
  private closed = false
  private windowMs = 32
  /** Voice heard before the VAD has declared speech, and whether it was reported as an onset. */
  private onsetMs = 0
  private onset = false
  /** The line's level says a sound began (the VAD model is slower to); and whether a hold was reported. */
  private readonly line: LineOnset | undefined
  private lineHeld = false
  private holdReported = false
  /** The VAD has declared speech: it, not the onsets, has the caller now. */
  private speaking = false
  /** Session clock time of the last STT final. */
  lastFinalAt: number | undefined

  constructor(
    private readonly engines: SessionEngines,
    private readonly vadParams: HysteresisParams,
    private readonly usage: SessionUsage,
    private readonly now: () => number,
    private readonly on: ListenerEvents,
    onset: OnsetParams = DEFAULT_ONSET,
  ) {
    this.vad = createVadStream(engines.vad, vadParams)
    // at 0 dBFS nothing is louder: only the VAD holds the agent
    this.line = onset.minDbfs < 0 ? new LineOnset(onset) : undefined
  }

  start(): void {
    void this.consumeVad()
    if (this.engines.stt?.capabilities.streaming) this.stt = this.openStt()
  }

  /** `inputDelayMs`: how long this audio waited (jitter buffer) since it reached the appliance. */
  push(frame: AudioFrame, inputDelayMs = 0): void {
    const frameMs = (frame.samples.length * 1000) / frame.sampleRate
    this.audioStartAt ??= this.now() - frameMs
    this.inputDelayMs = inputDelayMs
    this.vad.push(frame)
    if (this.line && !this.speaking) {
      const ev = this.line.push(rmsDbfs(frame.samples), frameMs)
      if (ev) (this.lineHeld = ev === 'onset'), this.reportHold()
    }
    this.recent.push({ atMs: this.audioMs, frame })
    while (this.recent.length > 0 && this.audioMs - this.recent[0]!.atMs > KEEP_MS) this.recent.shift()
    this.audioMs += frameMs
    this.stt?.push(frame)
  }

  /** The silence that ends the caller's speech (the VAD's hangover), set as the words come in. */
  setSilenceTarget(ms: number): void {
    this.vad.setMinSilenceMs(ms)
  }

  close(): void {
    this.closed = true
    this.vad.close()
    this.stt?.close()
  }

  /** Audio time (ms into the caller's stream) on the session clock, as it reached the appliance. */
  private clockOf(audioMs: number): number {
    return (this.audioStartAt ?? 0) + audioMs - this.inputDelayMs
  }

  /**
   * Where the caller's words ended (audio time): the end of the last voiced frame before the
   * silence the VAD found. The VAD's probability trails the voice by a window or more; a frame
   * is voiced by the same rule the agent's first voiced frame is measured with.
   */
  private speechEndOf(silenceStartMs: number, windowMs: number): number {
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const r = this.recent[i]!
      if (r.atMs >= silenceStartMs + windowMs) continue
      if (r.atMs < silenceStartMs - 2 * KEEP_MS) break
      r.voiced ??= isVoiced(r.frame.samples)
      if (r.voiced) return r.atMs + (r.frame.samples.length * 1000) / r.frame.sampleRate
    }
    return silenceStartMs
  }

  private framesSince(audioMs: number, maxMs = KEEP_MS): AudioFrame[] {
    const from = Math.max(audioMs, this.audioMs - maxMs)
    return this.recent.filter((r) => r.atMs >= from - 1e-6).map((r) => r.frame)
  }

  /** Voice before the VAD declares speech: an onset once it lasts ONSET_MS, quiet again if it fades first. */
  private watchOnset(probability: number, windowMs: number): void {
    const { startThreshold, stopThreshold } = this.vadParams
    if (probability >= startThreshold || (this.onsetMs > 0 && probability >= stopThreshold)) {
      this.onsetMs += windowMs
      if (!this.onset && this.onsetMs >= ONSET_MS) {
        this.onset = true
        this.reportHold()
      }
      return
    }
    this.onset = false
    this.onsetMs = 0
    this.reportHold()
  }

  /** The agent is held while either the model or the line's level has a possible start of speech. */
  private reportHold(): void {
    const held = this.onset || this.lineHeld
    if (held === this.holdReported) return
    this.holdReported = held
    this.on.input({ type: held ? 'vad_onset' : 'vad_quiet' })
  }

  /** The VAD declared speech (true) or its end: the onsets start over either way. */
  private handOver(speaking: boolean): void {
    this.speaking = speaking
    this.line?.reset()
    this.lineHeld = false
    this.holdReported = false
    this.onset = false
    this.onsetMs = 0
  }

  /** Per-utterance STT: the pause is long enough to end its utterance now, or the speech went on after one. */
  private onProgress(silenceMs: number, atMs: number, windowMs: number): void {
    if (!this.engines.stt || this.engines.stt.capabilities.streaming) return
    if (silenceMs > 0 && this.stt && this.pausedAtMs === undefined && silenceMs >= sttPauseMs(this.vad.minSilenceMs)) {
      this.pausedAtMs = atMs + windowMs - silenceMs
      this.stt.end()
      this.stt = undefined
    } else if (silenceMs === 0 && this.pausedAtMs !== undefined) {
      const from = this.pausedAtMs
      this.pausedAtMs = undefined
      this.stt = this.openStt()
      for (const f of this.framesSince(from)) this.stt.push(f)
    }
  }

  private async consumeVad(): Promise<void> {
    const perUtterance = !this.engines.stt?.capabilities.streaming
    for await (const ev of this.vad) {
      if (ev.type === 'error') {
        if (!this.closed) this.on.failed('vad', ev.error.message)
        break
      }
      if (ev.type === 'speech_start') {
        this.handOver(true)
        this.on.speaking(true, this.clockOf(ev.atMs))
        if (this.engines.stt && perUtterance) {
          this.stt?.end()
          this.pausedAtMs = undefined
          this.stt = this.openStt()
          for (const f of this.framesSince(ev.atMs - PREROLL_MS, PREROLL_MS)) this.stt.push(f)
        }
        this.on.input({ type: 'vad_start', atMs: this.clockOf(ev.atMs) })
      } else if (ev.type === 'progress') {
        if (!ev.speaking) {
          this.watchOnset(ev.probability, ev.windowMs)
          continue
        }
        this.onsetMs = 0
        this.onset = false
        this.windowMs = ev.windowMs
        this.onProgress(ev.silenceMs, ev.atMs, ev.windowMs)
        const silenceStartMs = ev.silenceMs > 0 ? this.clockOf(this.speechEndOf(ev.atMs + ev.windowMs - ev.silenceMs, ev.windowMs)) : undefined
        this.on.input({ type: 'vad_progress', speechMs: ev.speechMs, silenceStartMs })
      } else {
        this.handOver(false)
        this.on.speaking(false, this.clockOf(ev.atMs))
        this.pausedAtMs = undefined
        if (this.stt && perUtterance) {
          this.stt.end()
          this.stt = undefined
        }
        this.on.input({ type: 'vad_end', atMs: this.clockOf(this.speechEndOf(ev.atMs, this.windowMs)) })
      }
    }
  }

  private openStt(): SttStream {
    const stt = this.engines.stt!
    const stream = stt.stream()
    if (!stt.capabilities.streaming) this.on.input({ type: 'stt_open' })
    void (async () => {
      let final = false
      for await (const ev of stream) {
        if (this.closed) continue
        if (ev.type === 'error') {
          if (!ev.willRetry) this.on.failed(stt.provider, ev.error.message)
        } else if (ev.type === 'interim') this.on.input({ type: 'stt_interim', text: ev.text })
        else if (ev.type === 'final') {
          final = true
          this.lastFinalAt = this.now()
          // a final's "end of turn" is the STT's own short silence (STT_FINAL_SILENCE_MS) or the
          // utterance we ended: the session's endpointing decides the turn
          this.on.input({ type: 'stt_final', text: ev.text })
        } else if (ev.type === 'usage') this.usage.stt.push({ provider: stt.provider, audioMs: ev.audioMs })
      }
      // an utterance that ended with no words (noise, or words the interims guessed at) leaves no
      // interim waiting for a final that will not come
      if (!final && !this.closed && !stt.capabilities.streaming) this.on.input({ type: 'stt_final', text: '' })
    })()
    return stream
  }
}
