// Answering-machine detection, pure: frames of the callee's audio in, a decision out. It reads
// what a person and a machine do differently in the first seconds: a person says a short word
// and waits; a machine talks on (long greeting, many words) and often ends with a beep (a pure
// tone, found by Goertzel energy at one frequency holding most of the block's energy).
import { goertzelCoefficients, goertzelPower } from '../../../realtime/media/dtmf/index.ts'

export type AnsweredBy = 'human' | 'machine' | 'unknown'

export interface AmdDecision {
  answeredBy: AnsweredBy
  reason: 'beep' | 'long_greeting' | 'many_words' | 'short_greeting' | 'initial_silence' | 'max_time'
  atMs: number
}

export const AMD_DEFAULTS = {
  /** No speech at all this long: unknown (a person may wait silently; the agent takes the call). */
  initialSilenceMs: 2500,
  /** Speech (summed) this long before a pause: a machine's greeting. */
  greetingMs: 2000,
  /** Silence after a short greeting: a person waiting for an answer. */
  afterGreetingSilenceMs: 800,
  /** Words (voiced runs split by >= wordGapMs) before a pause: a machine. */
  maxWords: 5,
  wordGapMs: 120,
  /** Analysis stops here: still talking is a machine, else unknown. */
  totalMs: 5000,
  voicedDbfs: -42,
}
export type AmdOptions = typeof AMD_DEFAULTS

const BLOCK_MS = 40
const TONE_MIN_HZ = 350
const TONE_MAX_HZ = 2050
const TONE_STEP_HZ = 12.5
const TONE_PURITY = 0.6
const TONE_DBFS = -35
const TONE_MIN_BLOCKS = 3

export class AmdClassifier {
  private readonly block: Float64Array
  private fill = 0
  private readonly coeffs: Float64Array
  private readonly freqs: number[] = []
  private blocks = 0
  private voicedMs = 0
  private words = 0
  private inWord = false
  private silenceRun = 0
  private heardSpeech = false
  private toneBlocks = 0
  private toneHz = 0
  private beepAt?: number
  private beepEnd?: number
  private result?: AmdDecision

  constructor(readonly sampleRate = 16000, private readonly o: AmdOptions = AMD_DEFAULTS) {
    this.block = new Float64Array((sampleRate * BLOCK_MS) / 1000)
    for (let f = TONE_MIN_HZ; f <= TONE_MAX_HZ; f += TONE_STEP_HZ) this.freqs.push(f)
    this.coeffs = goertzelCoefficients(this.freqs, sampleRate)
  }

  get decision(): AmdDecision | undefined {
    return this.result
  }
  get elapsedMs(): number {
    return this.blocks * BLOCK_MS
  }
  /** Silence since the last speech or tone, in ms. */
  get silenceMs(): number {
    return this.silenceRun * BLOCK_MS
  }
  /** When a beep ended (the moment to speak after it), if one was heard and is over. */
  get beepEndedAtMs(): number | undefined {
    return this.beepEnd
  }

  push(pcm: Int16Array): AmdDecision | undefined {
    for (let i = 0; i < pcm.length; i++) {
      this.block[this.fill++] = pcm[i]! / 32768
      if (this.fill === this.block.length) {
        this.fill = 0
        this.step()
      }
    }
    return this.result
  }

  private step(): void {
    this.blocks++
    const n = this.block.length
    let energy = 0
    for (let i = 0; i < n; i++) energy += this.block[i]! * this.block[i]!
    const dbfs = 10 * Math.log10(energy / n + 1e-12)
    const tone = dbfs > TONE_DBFS ? this.toneOf(energy) : 0
    if (tone && (this.toneBlocks === 0 || Math.abs(tone - this.toneHz) <= 25)) {
      this.toneBlocks++
      this.toneHz = tone
      if (this.toneBlocks === TONE_MIN_BLOCKS) this.beepAt = this.elapsedMs
    } else {
      if (this.beepAt !== undefined && this.beepEnd === undefined && this.toneBlocks >= TONE_MIN_BLOCKS) this.beepEnd = this.elapsedMs
      this.toneBlocks = tone ? 1 : 0
      this.toneHz = tone
    }
    const voiced = dbfs > this.o.voicedDbfs
    if (voiced) {
      if (!this.inWord && this.silenceRun * BLOCK_MS >= this.o.wordGapMs) this.words++
      else if (!this.heardSpeech) this.words = 1
      this.inWord = true
      this.heardSpeech = true
      this.voicedMs += BLOCK_MS
      this.silenceRun = 0
    } else {
      this.inWord = false
      this.silenceRun++
    }
    if (!this.result) this.result = this.decide()
  }

  private decide(): AmdDecision | undefined {
    const at = this.elapsedMs
    if (this.beepAt !== undefined) return { answeredBy: 'machine', reason: 'beep', atMs: at }
    if (!this.heardSpeech) return at >= this.o.initialSilenceMs ? { answeredBy: 'unknown', reason: 'initial_silence', atMs: at } : undefined
    if (this.voicedMs >= this.o.greetingMs) return { answeredBy: 'machine', reason: 'long_greeting', atMs: at }
    if (this.words >= this.o.maxWords) return { answeredBy: 'machine', reason: 'many_words', atMs: at }
    if (this.silenceMs >= this.o.afterGreetingSilenceMs) return { answeredBy: 'human', reason: 'short_greeting', atMs: at }
    if (at >= this.o.totalMs) return { answeredBy: this.silenceRun === 0 ? 'machine' : 'unknown', reason: 'max_time', atMs: at }
    return undefined
  }

  /** The frequency holding most of the block's energy, or 0 when no single tone does. */
  private toneOf(energy: number): number {
    const n = this.block.length
    let best = 0
    let bestHz = 0
    for (let f = 0; f < this.coeffs.length; f++) {
      const p = goertzelPower(this.block, n, this.coeffs[f]!)
      if (p > best) {
        best = p
        bestHz = this.freqs[f]!
      }
    }
    // a pure sine of any amplitude gives p = energy * n / 2
    return (2 * best) / (n * energy) >= TONE_PURITY ? bestHz : 0
  }
}

/** Runs a whole recording through the classifier (no decision within it: unknown). */
export function classify(pcm: Int16Array, sampleRate = 16000, o: AmdOptions = AMD_DEFAULTS): AmdDecision {
  const c = new AmdClassifier(sampleRate, o)
  for (let i = 0; i < pcm.length && !c.decision; i += 320) c.push(pcm.subarray(i, i + 320))
  return c.decision ?? { answeredBy: 'unknown', reason: 'max_time', atMs: c.elapsedMs }
}
