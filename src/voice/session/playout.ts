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
  /** The sink holds one frame more than it has sent: the played clocks lag what was handed over by a frame. */
  private ahead = false

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
   * Queues audio; with `nowMs`, an idle playout hands the sink (the call's media) the first two
   * frames at once instead of at the next ticks: the sink sends the first at once (no wait for
   * its next 20 ms slot) and must always hold the next frame when its slot comes, or the reply
   * would have a 20 ms hole after its first frame.
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
      // views, not copies: engines hand over fresh buffers and never write to them again
      this.queue.push({ samples: samples.subarray(i, i + this.frameSamples), speech })
    }
    if (i < samples.length) this.partial = samples.slice(i)
    if (nowMs !== undefined && this.nextDueMs === undefined && this.queue.length > 0) {
      this.ahead = true
      this.tick(nowMs)
      // the second frame at once too: the sink sends the first as soon as it gets it, and must
      // already hold the second when its next slot comes, before this playout's next tick
      if (this.nextDueMs !== undefined) this.nextDueMs = nowMs
      this.tick(nowMs)
      if (this.nextDueMs !== undefined) this.nextDueMs = nowMs
    }
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
    this.ahead = false
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
    // by now the sink has sent what was handed over ahead of its clock at the previous tick
    if (this.ahead) for (const [speech, ms] of this.sent) if (speech.state === 'speaking') speech.setPlayedMs(ms)
    if (this.queue.length === 0) {
      this.nextDueMs = undefined
      this.ahead = false
      for (const s of this.sent.keys()) if (s.state !== 'speaking') this.sent.delete(s)
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
      item.speech.setPlayedMs(this.ahead ? after - this.frameMs : after)
    }
    for (const s of this.sent.keys()) if (s.state !== 'speaking') this.sent.delete(s)
  }
}
