import { type AudioFrame, isVoiced } from '../audio.ts'
import { Resampler } from '../resample.ts'
import type { SpeechHandle } from '../turn/speech-handle.ts'

interface Queued {
  samples: Int16Array
  speech: SpeechHandle
}

export interface PlayoutEvents {
  /** A speech's first frame went out, at this clock time. */
  firstFrame?(speech: SpeechHandle, atMs: number): void
  /** A speech's first voiced frame (not TTS silence) went out, at this clock time. */
  firstVoiced?(speech: SpeechHandle, atMs: number): void
  /** Drops what the sink (the call's media) holds and has not sent yet; returns its ms. */
  flushSink?(): number
}

/** Frames kept after sending, to be queued again when a pause drops them from the sink unsent. */
const RESEND = 4

/**
 * Paces agent audio out in 20 ms frames on the session clock and keeps each speech handle's
 * playout clock. `stop()` drops what is queued, here and in the sink: nothing more of an
 * interrupted reply is sent. `pause()` holds it (the sink's unsent frames come back to the
 * queue) until `resume()`.
 */
export class Playout {
  readonly frameSamples: number
  private readonly queue: Queued[] = []
  private partial: Int16Array | undefined
  private nextDueMs: number | undefined
  private readonly sent = new Map<SpeechHandle, number>()
  private readonly started = new WeakMap<SpeechHandle, number>()
  private readonly voiced = new WeakSet<SpeechHandle>()
  /** Per speech until its first voiced frame: its audio as the line carries it. */
  private readonly line = new WeakMap<SpeechHandle, Resampler>()
  private readonly recent: Queued[] = []
  /** The sink holds one frame more than it has sent: the played clocks lag what was handed over by a frame. */
  private ahead = false
  private paused = false

  constructor(
    readonly sampleRate: number,
    private readonly send: (frame: AudioFrame) => void,
    private readonly on: PlayoutEvents = {},
    readonly frameMs = 20,
    /** The line's audio rate (8000 on G.711): a 16 kHz "s" is loud, but the caller's phone does not carry it. */
    readonly lineRateHz = sampleRate,
  ) {
    this.frameSamples = (sampleRate * frameMs) / 1000
  }

  get isPaused(): boolean {
    return this.paused
  }

  /** Holds playback at once: the sink's unsent frames are taken back and sent after resume(). */
  pause(): void {
    if (this.paused) return
    this.paused = true
    const unsentMs = this.on.flushSink?.() ?? 0
    const back = Math.min(this.recent.length, Math.ceil(unsentMs / this.frameMs - 1e-6))
    const returned = this.recent.splice(this.recent.length - back, back)
    for (const item of returned) this.sent.set(item.speech, Math.max(0, (this.sent.get(item.speech) ?? 0) - this.frameMs))
    this.queue.unshift(...returned.filter((q) => q.speech.state === 'speaking'))
    this.recent.length = 0
    this.nextDueMs = undefined
    this.ahead = false
  }

  /** Plays on from where pause() held it; the first frames leave at once, as after silence. */
  resume(nowMs: number): void {
    if (!this.paused) return
    this.paused = false
    this.prime(nowMs)
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
    if (nowMs !== undefined) this.prime(nowMs)
  }

  private prime(nowMs: number): void {
    if (this.paused || this.nextDueMs !== undefined || this.queue.length === 0) return
    this.ahead = true
    this.tick(nowMs)
    // the second frame at once too: the sink sends the first as soon as it gets it, and must
    // already hold the second when its next slot comes, before this playout's next tick
    if (this.nextDueMs !== undefined) this.nextDueMs = nowMs
    this.tick(nowMs)
    if (this.nextDueMs !== undefined) this.nextDueMs = nowMs
  }

  /** Pads and queues a trailing partial frame (end of a speech). */
  flush(speech: SpeechHandle): void {
    if (!this.partial) return
    const padded = new Int16Array(this.frameSamples)
    padded.set(this.partial)
    this.partial = undefined
    if (speech.state === 'speaking') this.queue.push({ samples: padded, speech })
  }

  /** Drops everything queued, here and in the sink; returns the milliseconds of audio that will now never be sent. */
  stop(): number {
    const sink = this.on.flushSink?.() ?? 0
    const dropped = sink + this.queue.length * this.frameMs + (this.partial ? (this.partial.length * 1000) / this.sampleRate : 0)
    this.queue.length = 0
    this.recent.length = 0
    this.partial = undefined
    this.nextDueMs = undefined
    this.ahead = false
    this.paused = false
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
    if (this.paused) return
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
      if (before === 0 && !this.voiced.has(item.speech) && !this.started.has(item.speech)) {
        this.started.set(item.speech, nowMs)
        this.on.firstFrame?.(item.speech, nowMs)
      }
      if (!this.voiced.has(item.speech) && this.voicedOnLine(item)) {
        this.voiced.add(item.speech)
        // frames are handed over up to two ahead of the sink's clock: on the wire this one
        // follows the speech's earlier frames at 20 ms each
        this.on.firstVoiced?.(item.speech, Math.max(nowMs, (this.started.get(item.speech) ?? nowMs) + before))
      }
      this.send({ samples: item.samples, sampleRate: this.sampleRate })
      this.recent.push(item)
      if (this.recent.length > RESEND) this.recent.shift()
      const after = before + this.frameMs
      this.sent.set(item.speech, after)
      item.speech.setPlayedMs(this.ahead ? after - this.frameMs : after)
    }
    for (const s of this.sent.keys()) if (s.state !== 'speaking') this.sent.delete(s)
  }

  private voicedOnLine(item: Queued): boolean {
    if (this.lineRateHz >= this.sampleRate) return isVoiced(item.samples)
    let line = this.line.get(item.speech)
    if (!line) this.line.set(item.speech, (line = new Resampler(this.sampleRate, this.lineRateHz)))
    return isVoiced(line.push(item.samples))
  }
}
