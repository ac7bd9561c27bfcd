/**
 * End-of-turn detection: the caller has finished when the VAD has heard enough silence AND the
 * STT has delivered the words (or waited long enough for them). Pure: time is passed in.
 */
export interface EndpointingParams {
  /** After VAD end of speech, how long to wait for a late STT final before giving up on it. */
  maxFinalWaitMs: number
  /** When the final never comes, commit the last interim transcript instead of dropping the turn. */
  useInterimOnTimeout: boolean
}

export const DEFAULT_ENDPOINTING: EndpointingParams = { maxFinalWaitMs: 1500, useInterimOnTimeout: true }

export interface EndOfTurn {
  text: string
  /** Audio time the caller stopped speaking (VAD). */
  speechEndMs: number
  /** When the turn was committed; `decidedAtMs - speechEndMs` is the endpointing delay. */
  decidedAtMs: number
  /** The STT final arrived before the turn was committed. */
  hadFinal: boolean
}

export class Endpointer {
  private speaking = false
  private speechEndMs: number | undefined
  private finals: string[] = []
  private interim = ''

  constructor(private readonly params: EndpointingParams = DEFAULT_ENDPOINTING) {}

  get userSpeaking(): boolean {
    return this.speaking
  }

  /** Words heard in this turn so far (finals, then the latest interim). */
  get transcriptSoFar(): string {
    return [...this.finals, this.interim].filter(Boolean).join(' ')
  }

  vadSpeechStart(): void {
    this.speaking = true
    this.speechEndMs = undefined
  }

  vadSpeechEnd(atMs: number, nowMs: number): EndOfTurn | undefined {
    this.speaking = false
    this.speechEndMs = atMs
    return this.check(nowMs)
  }

  sttInterim(text: string): void {
    this.interim = text
  }

  sttFinal(text: string, nowMs: number): EndOfTurn | undefined {
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
    this.reset()
    return { text, speechEndMs: end, decidedAtMs: nowMs, hadFinal: false }
  }

  reset(): void {
    this.speechEndMs = undefined
    this.finals = []
    this.interim = ''
  }

  private check(nowMs: number): EndOfTurn | undefined {
    if (this.speaking || this.speechEndMs === undefined || this.finals.length === 0) return undefined
    // a final that covers speech up to the VAD end; interim words after it mean more is coming
    if (this.interim) return undefined
    const turn = { text: this.finals.join(' '), speechEndMs: this.speechEndMs, decidedAtMs: nowMs, hadFinal: true }
    this.reset()
    return turn
  }
}
