import type { PrefetchTts } from '../tts/prefetch.ts'
import { splitSentences } from '../turn/sentences.ts'
import type { Brain, BrainPreview, SessionUsage } from './types.ts'

/**
 * Looks ahead while the caller's endpoint is pending: asks the brain whether the words so far
 * answer it (a shorter silence ends the turn) and what it would say first, and has that sentence
 * synthesised before the turn is decided. Thrown away if the caller goes on.
 */
export class Speculator {
  private asked: string | undefined
  private answer: { text: string; preview: BrainPreview | undefined } | undefined
  private prefetched: string | undefined

  constructor(
    private readonly brain: Brain,
    private readonly tts: PrefetchTts,
    private readonly usage: SessionUsage,
    /** The text as the session would speak it ({{variables}} filled). */
    private readonly fill: (text: string) => string,
    /** A preview came back: the session re-reads the hint. */
    private readonly changed: () => void,
  ) {}

  /** Whether the brain takes `text` as an answer (undefined: it cannot tell, or has not been asked). */
  answers(text: string): boolean | undefined {
    return this.answer?.text === text ? this.answer.preview?.answers : undefined
  }

  /** The caller is silent after `text` and the STT has no more words: synthesise the first sentence now. */
  prepare(text: string): void {
    this.ask(text)
    const reply = this.answer?.text === text ? this.answer.preview?.reply : undefined
    const first = reply ? splitSentences(this.fill(reply))[0] : undefined
    if (!first || this.prefetched === first) return
    this.discard()
    this.prefetched = first
    this.tts.prefetch(first)
  }

  /** The caller went on speaking: the sentence prepared for the shorter turn is not wanted. */
  discard(): void {
    const text = this.prefetched
    if (text === undefined) return
    this.prefetched = undefined
    // a cloud TTS bills the characters of a request even when its audio is dropped half-way
    const done = this.tts.discard()
    this.usage.tts.push({ provider: this.tts.provider, characters: done?.characters ?? text.length, audioMs: done?.audioMs ?? 0 })
  }

  /** The turn was committed: whatever was prepared is the brain's to use now (or lost with a different text). */
  committed(): void {
    this.prefetched = undefined
    this.asked = undefined
    this.answer = undefined
  }

  private ask(text: string): void {
    if (!text || text === this.asked || !this.brain.preview) return
    this.asked = text
    void this.brain.preview(text).then(
      (preview) => {
        if (this.asked !== text) return
        this.answer = { text, preview }
        this.changed()
      },
      () => {},
    )
  }
}
