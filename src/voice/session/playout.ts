import type { AudioFrame } from '../audio.ts'
import type { SpeechHandle } from '../turn/speech-handle.ts'

interface Queued {
  samples: Int16Array
  speech: SpeechHandle
}

/**
 * Paces agent audio out in 20 ms frames on the session clock and keeps each speech handle's
 * playout clock. `stop()` drops what is queued: nothing more of an interrupted reply is sent.
 */
export class Playout {
  readonly frameSamples: number
  private readonly queue: Queued[] = []
  private partial: Int16Array | undefined
  private nextDueMs: number | undefined
  private readonly sent = new Map<SpeechHandle, number>()

  constructor(
    readonly sampleRate: number,
    private readonly send: (frame: AudioFrame) => void,
    /** Called with the clock time each time a speech's first frame goes out. */
    private readonly onFirstFrame: (speech: SpeechHandle, atMs: number) => void = () => {},
    readonly frameMs = 20,
  ) {
    this.frameSamples = (sampleRate * frameMs) / 1000
  }

  /**
   * Queues audio; with `nowMs`, an idle playout sends the first frame at once instead of at the
   * next tick (saves up to one frame of latency at the start of every reply).
   */
  enqueue(frame: AudioFrame, speech: SpeechHandle, nowMs?: number): void {
    if (frame.sampleRate !== this.sampleRate) throw new RangeError(`playout is ${this.sampleRate} Hz, frame is ${frame.sampleRate} Hz`)
    if (speech.state !== 'speaking') return
    let samples = frame.samples
    if (this.partial) {
      const joined = new Int16Array(this.partial.length + samples.length)
      joined.set(this.partial)
      joined.set(samples, this.partial.length)
      samples = joined
      this.partial = undefined
    }
    let i = 0
    for (; i + this.frameSamples <= samples.length; i += this.frameSamples) {
      this.queue.push({ samples: samples.slice(i, i + this.frameSamples), speech })
    }
    if (i < samples.length) this.partial = samples.slice(i)
    if (nowMs !== undefined && this.nextDueMs === undefined) this.tick(nowMs)
  }

  /** Pads and queues a trailing partial frame (end of a speech). */
  flush(speech: SpeechHandle): void {
    if (!this.partial) return
    const padded = new Int16Array(this.frameSamples)
    padded.set(this.partial)
    this.partial = undefined
    if (speech.state === 'speaking') this.queue.push({ samples: padded, speech })
  }

  /** Drops everything queued; returns the milliseconds of audio that will now never be sent. */
  stop(): number {
    const dropped = this.queue.length * this.frameMs + (this.partial ? (this.partial.length * 1000) / this.sampleRate : 0)
    this.queue.length = 0
    this.partial = undefined
    this.nextDueMs = undefined
    return dropped
  }

  get queuedMs(): number {
    return this.queue.length * this.frameMs
  }

  get idle(): boolean {
    return this.queue.length === 0
  }

  /** Sends every frame due by `nowMs` (one per 20 ms of clock, starting when audio first waits). */
  tick(nowMs: number): void {
    if (this.queue.length === 0) {
      this.nextDueMs = undefined
      return
    }
    this.nextDueMs ??= nowMs
    while (this.queue.length > 0 && this.nextDueMs <= nowMs) {
      const item = this.queue.shift()!
      this.nextDueMs += this.frameMs
      if (item.speech.state !== 'speaking') continue
      const before = this.sent.get(item.speech) ?? 0
      if (before === 0) this.onFirstFrame(item.speech, nowMs)
      this.send({ samples: item.samples, sampleRate: this.sampleRate })
      const after = before + this.frameMs
      this.sent.set(item.speech, after)
      item.speech.setPlayedMs(after)
    }
    for (const s of this.sent.keys()) if (s.state !== 'speaking') this.sent.delete(s)
  }
}
