import type { AudioFrame } from '../audio.ts'
import type { SttStream } from '../stt/contract.ts'
import type { TurnInput } from '../turn/controller.ts'
import type { HysteresisParams } from '../vad/hysteresis.ts'
import { createVadStream, type VadStream } from '../vad/stream.ts'
import type { SessionEngines, SessionUsage } from './types.ts'

const PREROLL_MS = 400

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
  private readonly preroll: AudioFrame[] = []
  private audioStartAt: number | undefined
  private closed = false
  /** Session clock time of the last STT final. */
  lastFinalAt: number | undefined

  constructor(
    private readonly engines: SessionEngines,
    vad: HysteresisParams,
    private readonly usage: SessionUsage,
    private readonly now: () => number,
    private readonly on: ListenerEvents,
  ) {
    this.vad = createVadStream(engines.vad, vad)
  }

  start(): void {
    void this.consumeVad()
    if (this.engines.stt?.capabilities.streaming) this.stt = this.openStt()
  }

  push(frame: AudioFrame): void {
    this.audioStartAt ??= this.now() - (frame.samples.length * 1000) / frame.sampleRate
    this.vad.push(frame)
    if (this.engines.stt && !this.engines.stt.capabilities.streaming) {
      this.preroll.push(frame)
      while (this.preroll.length * 20 > PREROLL_MS) this.preroll.shift()
    }
    this.stt?.push(frame)
  }

  close(): void {
    this.closed = true
    this.vad.close()
    this.stt?.close()
  }

  /** Audio time (ms into the caller's stream) on the session clock. */
  private clockOf(audioMs: number): number {
    return (this.audioStartAt ?? 0) + audioMs
  }

  private async consumeVad(): Promise<void> {
    const perUtterance = !this.engines.stt?.capabilities.streaming
    for await (const ev of this.vad) {
      if (ev.type === 'error') {
        if (!this.closed) this.on.failed('vad', ev.error.message)
        break
      }
      if (ev.type === 'speech_start') {
        this.on.speaking(true, this.clockOf(ev.atMs))
        if (this.engines.stt && perUtterance) {
          this.stt?.end()
          this.stt = this.openStt()
          for (const f of this.preroll) this.stt.push(f)
        }
        this.on.input({ type: 'vad_start', atMs: this.clockOf(ev.atMs) })
      } else if (ev.type === 'progress') {
        if (ev.speaking) this.on.input({ type: 'vad_progress', speechMs: ev.speechMs })
      } else {
        this.on.speaking(false, this.clockOf(ev.atMs))
        if (this.stt && perUtterance) {
          this.stt.end()
          this.stt = undefined
        }
        this.on.input({ type: 'vad_end', atMs: this.clockOf(ev.atMs) })
      }
    }
  }

  private openStt(): SttStream {
    const stt = this.engines.stt!
    const stream = stt.stream()
    void (async () => {
      for await (const ev of stream) {
        if (this.closed) continue
        if (ev.type === 'error') {
          if (!ev.willRetry) this.on.failed(stt.provider, ev.error.message)
        } else if (ev.type === 'interim') this.on.input({ type: 'stt_interim', text: ev.text })
        else if (ev.type === 'final') {
          this.lastFinalAt = this.now()
          this.on.input({ type: 'stt_final', text: ev.text })
        } else if (ev.type === 'usage') this.usage.stt.push({ provider: stt.provider, audioMs: ev.audioMs })
      }
    })()
    return stream
  }
}
