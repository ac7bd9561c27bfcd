// Whether a decoder thread keeps up with the callers' audio, for admission: what it did over the
// last interval, told to it by the worker. Pure: the worker gives it the times.

export interface DecodeLoad {
  /**
   * Seconds of decoding the audio that arrived over the interval needs, per second of the
   * interval, all its utterances together; 1 or more: the thread falls behind the callers.
   */
  realTimeFactor: number
  /** The most audio one open utterance has waiting to be decoded, ms. */
  backlogMs: number
}

const SAMPLES_PER_MS = 16

export class DecodeLoadMeter {
  private busyMs = 0
  private decoded = 0
  private arrivedSamples = 0
  private since: number

  constructor(now: number) {
    this.since = now
  }

  /** Samples of a caller's audio came in to be decoded. */
  arrived(samples: number): void {
    this.arrivedSamples += samples
  }

  /** The thread decoded `samples` (0: it finished an utterance) in `busyMs`. */
  worked(samples: number, busyMs: number): void {
    this.decoded += samples
    this.busyMs += busyMs
  }

  /** The interval's figures, and a new interval from `now`; `backlogSamples`: the most one open utterance has queued. */
  take(now: number, backlogSamples: number): DecodeLoad {
    const wallMs = Math.max(1, now - this.since)
    // what the audio that came in costs at the thread's cost per sample; while it keeps up that is
    // its busy time, once it falls behind it is more than the interval
    const needMs = this.decoded > 0 ? (this.busyMs / this.decoded) * this.arrivedSamples : 0
    const load = { realTimeFactor: round(Math.max(this.busyMs, needMs) / wallMs), backlogMs: Math.round(backlogSamples / SAMPLES_PER_MS) }
    this.busyMs = this.decoded = this.arrivedSamples = 0
    this.since = now
    return load
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000

/** The worst of several threads' figures (undefined: none reported). */
export function worstLoad(loads: (DecodeLoad | undefined)[]): DecodeLoad | undefined {
  const known = loads.filter((l): l is DecodeLoad => l !== undefined)
  if (known.length === 0) return undefined
  return { realTimeFactor: Math.max(...known.map((l) => l.realTimeFactor)), backlogMs: Math.max(...known.map((l) => l.backlogMs)) }
}
