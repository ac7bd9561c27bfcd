/**
 * One thing the agent says: its sentences, how much of its audio has been played, and whether
 * the caller cut it off. The transcript keeps only what the caller actually heard.
 */
export type SpeechState = 'speaking' | 'completed' | 'interrupted'

interface Segment {
  text: string
  audioMs: number
  /** All of the segment's audio is known (false while a streaming TTS is still sending it). */
  complete: boolean
}

/** Typical speaking rate, for sentences whose audio is still arriving: ~15 characters a second. */
export const ESTIMATED_MS_PER_CHAR = 65

export interface SpeechHandleOptions {
  /** False for lines that must be heard whole (a goodbye before hanging up). */
  allowInterruptions: boolean
}

let counter = 0

export class SpeechHandle {
  readonly id = `speech_${++counter}`
  private readonly segments: Segment[] = []
  private playedMs = 0
  private inputDone = false
  private _state: SpeechState = 'speaking'
  private resolveDone!: (s: SpeechState) => void
  /** Resolves once the speech completes or is interrupted. */
  readonly done: Promise<SpeechState> = new Promise((r) => {
    this.resolveDone = r
  })

  constructor(readonly opts: SpeechHandleOptions = { allowInterruptions: true }) {}

  get state(): SpeechState {
    return this._state
  }

  get allowInterruptions(): boolean {
    return this.opts.allowInterruptions
  }

  /** Audio of this length for `text` is queued for playback; `complete: false` when more will follow. */
  addSegment(text: string, audioMs: number, complete = true): void {
    if (this._state !== 'speaking') return
    if (!(audioMs >= 0)) throw new RangeError('segment audio length must be non-negative')
    this.segments.push({ text, audioMs, complete })
  }

  /** The last segment's audio is all queued. */
  completeSegment(): void {
    const last = this.segments[this.segments.length - 1]
    if (last) last.complete = true
  }

  /** More audio of the last segment was queued (streaming TTS delivers a sentence in pieces). */
  addAudio(audioMs: number): void {
    if (this._state !== 'speaking') return
    const last = this.segments[this.segments.length - 1]
    if (!last) throw new Error('addAudio before any segment')
    if (!(audioMs >= 0)) throw new RangeError('audio length must be non-negative')
    last.audioMs += audioMs
  }

  /** No more segments will come; the speech completes when all queued audio has played. */
  finishInput(): void {
    this.inputDone = true
    this.maybeComplete()
  }

  /** The playout clock: total milliseconds of this speech sent to the caller so far. */
  setPlayedMs(ms: number): void {
    if (this._state !== 'speaking') return
    this.playedMs = Math.min(Math.max(this.playedMs, ms), this.queuedMs)
    this.maybeComplete()
  }

  get queuedMs(): number {
    return this.segments.reduce((n, s) => n + s.audioMs, 0)
  }

  get played(): number {
    return this.playedMs
  }

  /** Stops the speech where playback stands. Returns false (and changes nothing) when not allowed. */
  interrupt(): boolean {
    if (this._state !== 'speaking') return false
    if (!this.opts.allowInterruptions) return false
    this._state = 'interrupted'
    this.resolveDone('interrupted')
    return true
  }

  /**
   * The words the caller heard: whole segments played, plus the words of the current segment in
   * proportion to how much of its audio was played (speech rate is roughly even within a sentence).
   */
  get playedText(): string {
    return this.textPlayed(Math.floor)
  }

  /**
   * As playedText, with the word that was being said at the cut counted as said: what a caller
   * who barged in half a second into "Hello." heard is "Hello.", not nothing.
   */
  get begunText(): string {
    return this.textPlayed(Math.ceil)
  }

  private textPlayed(partialWords: (words: number) => number): string {
    const parts: string[] = []
    let left = this.playedMs
    for (const seg of this.segments) {
      if (left <= 0) break
      const length = seg.complete ? seg.audioMs : Math.max(seg.audioMs, seg.text.length * ESTIMATED_MS_PER_CHAR)
      if (left >= length) {
        parts.push(seg.text)
        left -= length
        continue
      }
      const words = seg.text.split(/\s+/).filter(Boolean)
      const n = Math.min(words.length, partialWords((words.length * left) / length))
      if (n > 0) parts.push(words.slice(0, n).join(' '))
      break
    }
    return parts.join(' ')
  }

  get fullText(): string {
    return this.segments.map((s) => s.text).join(' ')
  }

  private maybeComplete(): void {
    if (this._state === 'speaking' && this.inputDone && this.playedMs >= this.queuedMs) {
      this._state = 'completed'
      this.resolveDone('completed')
    }
  }
}
