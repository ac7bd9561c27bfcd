// The caller's audio as a media-stream client sends it, played to the call at real time: cut
// into 20 ms packets whatever the client's frame sizes, and released one per 20 ms tick of the
// call's media clock, as Twilio plays the audio a stream sends it. A mark waits behind the audio
// sent before it and is echoed once that audio has gone to the call. Pure.

export interface InboundLimits {
  /** Audio waiting beyond this (bytes) means the client sends far faster than real time. */
  maxQueuedBytes: number
  maxMarks: number
}

export interface Tick {
  /** 20 ms of audio for the call, if any waits. */
  packet?: Uint8Array
  /** Marks whose audio has now gone to the call: echo them. */
  marks: string[]
}

export class InboundAudio {
  private readonly items: (Uint8Array | string | undefined)[] = []
  private head = 0
  private partial: Uint8Array
  private partialLen = 0
  private queuedBytes = 0
  private marks = 0

  constructor(
    private readonly frameBytes: number,
    /** One byte of silence in the format (0xff in μ-law, 0 in PCM). */
    private readonly silenceByte: number,
    private readonly limits: InboundLimits,
  ) {
    this.partial = new Uint8Array(frameBytes)
  }

  /** Queues audio; 'full' when more than the limit waits (nothing is queued then). */
  push(audio: Uint8Array): 'ok' | 'full' {
    if (this.queuedBytes + this.partialLen + audio.length > this.limits.maxQueuedBytes) return 'full'
    let at = 0
    while (at < audio.length) {
      const n = Math.min(this.frameBytes - this.partialLen, audio.length - at)
      this.partial.set(audio.subarray(at, at + n), this.partialLen)
      this.partialLen += n
      at += n
      if (this.partialLen === this.frameBytes) this.enqueuePartial()
    }
    return 'ok'
  }

  /**
   * A mark after the audio sent so far: 'now' when no audio waits (echo it at once), 'queued',
   * or 'too_many' when the limit of waiting marks is reached. A part-frame before it is padded
   * with silence so the mark is not held by a frame that may never fill.
   */
  mark(name: string): 'now' | 'queued' | 'too_many' {
    if (this.partialLen > 0) {
      this.partial.fill(this.silenceByte, this.partialLen)
      this.enqueuePartial()
    }
    if (this.pending === 0) return 'now'
    if (this.marks >= this.limits.maxMarks) return 'too_many'
    this.items.push(name)
    this.marks++
    return 'queued'
  }

  /** Drops the waiting audio; the marks that were waiting are returned, to echo (as Twilio does on clear). */
  clear(): string[] {
    const marks = this.items.slice(this.head).filter((i): i is string => typeof i === 'string')
    this.items.length = 0
    this.head = 0
    this.partialLen = 0
    this.queuedBytes = 0
    this.marks = 0
    return marks
  }

  /** One 20 ms step: the next packet, and the marks that followed it. */
  tick(): Tick {
    const out: Tick = { marks: [] }
    this.takeMarks(out.marks)
    const next = this.items[this.head]
    if (next instanceof Uint8Array) {
      this.items[this.head++] = undefined
      this.queuedBytes -= next.length
      out.packet = next
      this.takeMarks(out.marks)
    }
    if (this.head > 256 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head)
      this.head = 0
    }
    return out
  }

  private get pending(): number {
    return this.items.length - this.head
  }

  private takeMarks(into: string[]): void {
    for (let item = this.items[this.head]; typeof item === 'string'; item = this.items[this.head]) {
      into.push(item)
      this.items[this.head++] = undefined
      this.marks--
    }
  }

  private enqueuePartial(): void {
    this.items.push(this.partial)
    this.queuedBytes += this.frameBytes
    this.partial = new Uint8Array(this.frameBytes)
    this.partialLen = 0
  }
}
