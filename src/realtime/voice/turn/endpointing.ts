/**
 * End-of-turn detection: the caller has finished when the VAD has heard enough silence AND the
 * STT has delivered the words (or waited long enough for them). How much silence is enough
 * adapts to the words (silence.ts). Pure: time is passed in.
 */
import { type Completeness, judgeWords, type SilenceTargets, silenceTargets } from './silence.ts'

export interface EndpointingParams {
  /** After VAD end of speech, how long to wait for a late STT final before giving up on it. */
  maxFinalWaitMs: number
  /** When the final never comes, commit the last interim transcript instead of dropping the turn. */
  useInterimOnTimeout: boolean
}

export const DEFAULT_ENDPOINTING: EndpointingParams = { maxFinalWaitMs: 1500, useInterimOnTimeout: true }

export interface EndOfTurn {
  text: string
  /** Session time the caller stopped speaking (the last voiced audio as it reached us). */
  speechEndMs: number
  /** When the silence that ends the turn was over (the VAD's end). */
  silenceOverMs?: number
  /** When the turn was committed; `decidedAtMs - speechEndMs` is the endpointing delay. */
  decidedAtMs: number
  /** The STT final arrived before the turn was committed. */
  hadFinal: boolean
}

export class Endpointer {
  private speaking = false
  private speechEndMs: number | undefined
  private silenceOverMs: number | undefined
  /** Session time the current silence inside speech began (the VAD has not ended the speech yet). */
  private silenceStartMs: number | undefined
  private finals: string[] = []
  private interim = ''
  /** Per-utterance STT utterances opened and not yet given their final (words after a pause still decoding). */
  private open = 0
  private readonly targets: SilenceTargets

  constructor(
    private readonly params: EndpointingParams = DEFAULT_ENDPOINTING,
    targets: SilenceTargets = silenceTargets('normal'),
  ) {
    this.targets = targets
  }

  get userSpeaking(): boolean {
    return this.speaking
  }

  /** The caller is speaking, or has spoken and the turn is not decided yet. */
  get pending(): boolean {
    return this.speaking || this.speechEndMs !== undefined
  }

  /** Session time the caller's last speech ended, while a turn is pending. */
  get pendingSince(): number | undefined {
    return this.speechEndMs ?? this.silenceStartMs
  }

  /** Words heard in this turn so far (finals, then the latest interim). */
  get transcriptSoFar(): string {
    return [...this.finals, this.interim].filter(Boolean).join(' ')
  }

  /** The words so far end in an interim, which the STT may still change. */
  get tentative(): boolean {
    return this.interim !== ''
  }

  /** The finals of this turn, when no interim or open utterance says more words are coming. */
  get settledText(): string | undefined {
    return this.finals.length > 0 && !this.interim && this.open === 0 ? this.finals.join(' ') : undefined
  }

  /** Silence that ends this turn, given what has been said; `answers`: the brain knows the words answer it. */
  silenceTargetMs(answers?: boolean): number {
    const judged: Completeness = judgeWords(this.transcriptSoFar, answers)
    return judged === 'complete' ? this.targets.completeMs : judged === 'hesitant' ? this.targets.hesitantMs : this.targets.unknownMs
  }

  vadSpeechStart(): void {
    this.speaking = true
    this.speechEndMs = undefined
    this.silenceOverMs = undefined
    this.silenceStartMs = undefined
  }

  /** The VAD's running silence inside speech: `startMs` when it began, undefined while voiced. */
  vadSilence(startMs: number | undefined): void {
    if (this.speaking) this.silenceStartMs = startMs
  }

  vadSpeechEnd(atMs: number, nowMs: number): EndOfTurn | undefined {
    this.speaking = false
    this.silenceStartMs = undefined
    this.speechEndMs = atMs
    this.silenceOverMs = nowMs
    return this.check(nowMs)
  }

  /** A per-utterance STT opened an utterance: its final (maybe empty) is still to come. */
  sttOpened(): void {
    this.open++
  }

  /** An utterance's final arrived without joining the turn (a discarded backchannel's). */
  sttClosed(): void {
    this.open = Math.max(0, this.open - 1)
  }

  sttInterim(text: string): void {
    this.interim = text
  }

  sttFinal(text: string, nowMs: number): EndOfTurn | undefined {
    this.sttClosed()
    if (text.trim()) this.finals.push(text.trim())
    this.interim = ''
    return this.check(nowMs)
  }

  /** Call on a timer (or each audio frame) so a missing STT final cannot stall the turn. */
  tick(nowMs: number): EndOfTurn | undefined {
    if (this.speaking || this.speechEndMs === undefined) return undefined
    if (nowMs - this.speechEndMs < this.params.maxFinalWaitMs) return undefined
    const text = this.params.useInterimOnTimeout ? this.transcriptSoFar : this.finals.join(' ')
    // nothing understood yet: noise or a cough, or a slow STT whose final will still commit the turn
    if (!text) return undefined
    const end = this.speechEndMs
    const over = this.silenceOverMs
    this.reset()
    // finals that never came are not waited for again
    this.open = 0
    return { text, speechEndMs: end, silenceOverMs: over, decidedAtMs: nowMs, hadFinal: false }
  }

  reset(): void {
    this.speechEndMs = undefined
    this.silenceOverMs = undefined
    this.finals = []
    this.interim = ''
  }

  private check(nowMs: number): EndOfTurn | undefined {
    if (this.speaking || this.speechEndMs === undefined || this.finals.length === 0) return undefined
    // a final that covers speech up to the VAD end; interim words after it, or an utterance
    // reopened after a pause and still decoding, mean more is coming
    if (this.interim || this.open > 0) return undefined
    const turn = { text: this.finals.join(' '), speechEndMs: this.speechEndMs, silenceOverMs: this.silenceOverMs, decidedAtMs: nowMs, hadFinal: true }
    this.reset()
    return turn
  }
}
