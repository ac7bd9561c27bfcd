// What arrives from the far end, as the media watchdog and the call record see it: bytes, the
// largest silence between two packets, and whether the stream has been quiet for too long.
// Pure: times are arguments.

export interface ReceiveWatchStats {
  bytesReceived: number
  /** The longest time between two packets while media was due (and from the last one to the end). */
  maxGapMs: number
}

export class ReceiveWatch {
  private bytes = 0
  private maxGap = 0
  /** When the last packet came, or when we last began to expect media (start, off hold). */
  private lastHeardMs: number | undefined
  private heardAny = false
  private fired = false
  /** Off while on hold: a held call may send nothing for as long as it likes. */
  private expecting = false

  /** `timeoutMs`: quiet this long ends the call (0: never). */
  constructor(private readonly timeoutMs: number) {}

  packet(bytes: number, nowMs: number): void {
    this.bytes += bytes
    if (this.expecting && this.lastHeardMs !== undefined && this.heardAny) this.maxGap = Math.max(this.maxGap, nowMs - this.lastHeardMs)
    this.lastHeardMs = nowMs
    this.heardAny = true
  }

  /** Whether media is due from the far end now (not on hold); the quiet time restarts when it becomes due. */
  expect(on: boolean, nowMs: number): void {
    if (on && !this.expecting) {
      this.lastHeardMs = nowMs
      this.heardAny = false
    }
    this.expecting = on
  }

  /** True once, the first time the far end has been quiet for the timeout while media was due. */
  timedOut(nowMs: number): boolean {
    if (this.timeoutMs <= 0 || this.fired || !this.expecting) return false
    this.lastHeardMs ??= nowMs
    if (nowMs - this.lastHeardMs < this.timeoutMs) return false
    this.fired = true
    return true
  }

  /** Nothing at all arrived during the call. */
  get silent(): boolean {
    return this.bytes === 0
  }

  stats(nowMs: number): ReceiveWatchStats {
    // a stream still quiet at the end has a gap up to now
    const open = this.expecting && this.lastHeardMs !== undefined && this.heardAny ? nowMs - this.lastHeardMs : 0
    return { bytesReceived: this.bytes, maxGapMs: Math.round(Math.max(this.maxGap, open)) }
  }
}
