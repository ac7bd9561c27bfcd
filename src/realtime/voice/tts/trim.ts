// TTS leading and trailing silence is latency the caller hears (issue 22): flite opens every
// synthesis with 130-350 ms of near silence and ends it with 60-280 ms. The trimmer cuts both
// ends of one synthesis, keeping short pads, and never touches what lies between its words.
import { type ConnOptions, isErrorEvent, RelayStream } from '../base.ts'
import type { Tts, TtsEvent, TtsPriority, TtsStream } from './contract.ts'

export interface TrimOptions {
  /** A sample of at least this magnitude is voiced; quieter ones are near silence. */
  voicedLevel: number
  /** A leading run of voiced samples is words once one of its samples reaches this level... */
  wordsLevel: number
  /** ...or once the run lasts this long; shorter, quieter runs before the words are dropped. */
  wordsRunMs: number
  /** Voiced samples closer than this belong to one run. */
  runGapMs: number
  /** Kept before the first voiced sample, so the first phoneme's rise is not clipped. */
  onsetPadMs: number
  /** Kept after the last voiced sample: the pause before the next sentence (each is synthesised on its own). */
  trailingPadMs: number
}

/*
 * Levels measured on flite's five voices (25 sentences each, at 8 and 16 kHz) and the test fakes:
 * - flite's silence peaks at 8-150 (rms 8, kal16 33, slt 60, awb 150); the first phoneme rises
 *   through 250-700 and its words reach 2,000-22,000. The fakes' tones are voiced from sample 1.
 * - kal and kal16 open many sentences ("What", "Where", "We", "Let") with a 40-80 ms buzz peaking
 *   at 400 (kal16) or 1,000 (kal), 110-155 ms before the words: a run must reach 2048 (-24 dBFS)
 *   or last 150 ms to be words, so such a buzz goes with the silence.
 * - awb's "Th" of "Thank" (peaks 680) is 70 ms before its vowel: voiced samples up to 100 ms
 *   apart are one run, so the fricative stays with the word it starts.
 * Below 256 (-42 dBFS) a fricative's first rise is not heard on a phone line.
 * flite pauses 117-266 ms between the sentences of one synthesis; a sentence keeps 180 ms after
 * its words so the sentences of one reply (synthesised one by one) do not run together.
 */
export const TRIM_DEFAULTS: TrimOptions = { voicedLevel: 256, wordsLevel: 2048, wordsRunMs: 150, runGapMs: 100, onsetPadMs: 10, trailingPadMs: 180 }

/**
 * The trimming of one synthesis, fed its samples in order (any piece sizes). push() returns
 * what may be played now: nothing until the words start, then everything except a tail of near
 * silence that may turn out to be trailing; that tail is released unchanged when voiced audio
 * follows, and cut to the trailing pad by end().
 */
export class SilenceTrimmer {
  private leading = true
  /** Absolute index of the next sample pushed. */
  private pos = 0
  private held: Int16Array[] = []
  private heldStart = 0
  private runStart = -1
  private lastVoiced = -Infinity
  private readonly gap: number
  private readonly wordsRun: number
  private readonly onsetPad: number
  private readonly trailingPad: number
  /** Absolute index of the first voiced sample of the words, once found. */
  onset: number | undefined
  /** Samples dropped after the words (known at end()). */
  trailingDropped = 0

  constructor(
    readonly sampleRate: number,
    private readonly opts: TrimOptions = TRIM_DEFAULTS,
  ) {
    const samples = (ms: number) => Math.round((ms * sampleRate) / 1000)
    this.gap = samples(opts.runGapMs)
    this.wordsRun = samples(opts.wordsRunMs)
    this.onsetPad = samples(opts.onsetPadMs)
    this.trailingPad = samples(opts.trailingPadMs)
  }

  /** Samples dropped before the words (all of them while none were found). */
  get leadingDropped(): number {
    return this.onset === undefined ? this.pos : Math.max(0, this.onset - this.onsetPad)
  }

  push(samples: Int16Array): Int16Array | undefined {
    const out: Int16Array[] = []
    let rest = samples
    if (this.leading) {
      const at = this.findWords(samples)
      this.hold(samples)
      if (at < 0) {
        this.pos += samples.length
        this.dropBefore(this.earliestOnset() - this.onsetPad)
        return undefined
      }
      this.leading = false
      this.dropBefore(this.onset! - this.onsetPad)
      // the last piece held is what is left of `samples`: it goes out up to the sample at `at`
      const last = this.held.pop()!
      out.push(...this.held, last.subarray(0, last.length - (samples.length - at - 1)))
      this.held = []
      rest = samples.subarray(at + 1)
    }
    let last = rest.length - 1
    while (last >= 0 && Math.abs(rest[last]!) < this.opts.voicedLevel) last--
    if (last >= 0) {
      out.push(...this.held, rest.subarray(0, last + 1))
      this.held = []
    }
    this.hold(rest.subarray(last + 1))
    this.pos += samples.length
    return joined(out)
  }

  /** The end of the synthesis: the trailing pad of the held silence (nothing if no words came). */
  end(): Int16Array | undefined {
    if (this.leading) {
      this.held = []
      return undefined
    }
    const tail = joined(this.held)
    this.held = []
    if (!tail) return undefined
    this.trailingDropped = Math.max(0, tail.length - this.trailingPad)
    return tail.length > this.trailingPad ? tail.subarray(0, this.trailingPad) : tail
  }

  /** Index in `samples` of the sample that shows the words have started, or -1. */
  private findWords(samples: Int16Array): number {
    const { voicedLevel, wordsLevel } = this.opts
    for (let i = 0; i < samples.length; i++) {
      const a = Math.abs(samples[i]!)
      if (a < voicedLevel) continue
      const k = this.pos + i
      if (k - this.lastVoiced > this.gap) this.runStart = k
      this.lastVoiced = k
      if (a >= wordsLevel || k - this.runStart >= this.wordsRun) {
        this.onset = this.runStart
        return i
      }
    }
    return -1
  }

  /** Where the words could start at the earliest: the current run's start, or the next sample. */
  private earliestOnset(): number {
    return this.pos - 1 - this.lastVoiced <= this.gap ? this.runStart : this.pos
  }

  private hold(samples: Int16Array): void {
    if (samples.length === 0) return
    if (this.held.length === 0) this.heldStart = this.pos
    this.held.push(samples)
  }

  /** Forgets held samples before absolute index `index` (leading phase only). */
  private dropBefore(index: number): void {
    let cut = index - this.heldStart
    while (cut > 0 && this.held.length > 0) {
      const first = this.held[0]!
      if (first.length <= cut) {
        this.held.shift()
        this.heldStart += first.length
        cut -= first.length
      } else {
        this.held[0] = first.subarray(cut)
        this.heldStart += cut
        cut = 0
      }
    }
  }
}

function joined(pieces: Int16Array[]): Int16Array | undefined {
  const parts = pieces.filter((p) => p.length > 0)
  if (parts.length <= 1) return parts[0]
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

/**
 * A Tts whose syntheses start at their words and end a trailing pad after them. Events other
 * than audio pass unchanged: `done` keeps the provider's characters and audioMs (what is billed).
 */
export class TrimmedTts implements Tts {
  readonly provider: string
  readonly capabilities: Tts['capabilities']
  readonly sampleRate: number

  constructor(
    readonly inner: Tts,
    readonly opts: TrimOptions = TRIM_DEFAULTS,
  ) {
    this.provider = inner.provider
    this.capabilities = inner.capabilities
    this.sampleRate = inner.sampleRate
  }

  synthesize(text: string, conn?: ConnOptions, priority?: TtsPriority): TtsStream {
    // created now: text the engine refuses throws here, as it would unwrapped
    const source = this.inner.synthesize(text, conn, priority)
    return new RelayStream<TtsEvent>(this.inner.provider, source, async (emit, signal) => {
      let trimmer: SilenceTrimmer | undefined
      let ended = false
      const finish = () => {
        const tail = trimmer?.end()
        if (tail && trimmer) emit({ type: 'audio', frame: { samples: tail, sampleRate: trimmer.sampleRate } })
        ended = true
      }
      for await (const ev of source) {
        if (ev.type === 'audio') {
          trimmer ??= new SilenceTrimmer(ev.frame.sampleRate, this.opts)
          const samples = trimmer.push(ev.frame.samples)
          if (samples) emit({ type: 'audio', frame: { samples, sampleRate: ev.frame.sampleRate } })
        } else if (ev.type === 'done') {
          finish()
          emit(ev)
        } else {
          // the engine starts over after a retryable failure; a fatal one ends the synthesis
          if (isErrorEvent(ev) && ev.willRetry) trimmer = undefined
          else ended = true
          emit(ev)
        }
      }
      if (!ended && !signal.aborted) finish()
    })
  }
}

export function trimmedTts(tts: Tts, opts: Partial<TrimOptions> = {}): TrimmedTts {
  return new TrimmedTts(tts, { ...TRIM_DEFAULTS, ...opts })
}
