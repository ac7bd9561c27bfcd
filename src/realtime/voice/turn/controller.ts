import { type BargeInParams, bargeInDecision, isBackchannel } from './barge-in.ts'
import { type EndOfTurn, Endpointer, type EndpointingParams } from './endpointing.ts'
import { type SilenceTargets, silenceTargets } from './silence.ts'
import type { SpeechHandle } from './speech-handle.ts'

/** What the VAD and STT report, on one clock (ms since the call started). */
export type TurnInput =
  /** Voice the VAD has not yet declared speech (a possible start): the agent is held for it. */
  | { type: 'vad_onset' }
  /** That voice faded before it became speech. */
  | { type: 'vad_quiet' }
  | { type: 'vad_start'; atMs: number }
  /** `silenceStartMs`: when the silence running inside the speech began (undefined while voiced). */
  | { type: 'vad_progress'; speechMs: number; silenceStartMs?: number }
  | { type: 'vad_end'; atMs: number }
  /** A per-utterance STT opened an utterance; one stt_final (maybe empty) follows. */
  | { type: 'stt_open' }
  | { type: 'stt_interim'; text: string }
  | { type: 'stt_final'; text: string }
  | { type: 'tick' }

export type TurnOutput =
  /** The caller started talking over the agent: hold playback (it may be a backchannel). */
  | { type: 'pause'; speech: SpeechHandle; atMs: number }
  /** It was a backchannel or a noise: play on from where playback was held. */
  | { type: 'resume'; speech: SpeechHandle }
  /** Stop playback now; the agent's transcript entry becomes `playedText`. */
  | { type: 'interrupt'; speech: SpeechHandle; playedText: string; atMs: number }
  /** The caller finished a turn: answer it. */
  | { type: 'user_turn'; turn: EndOfTurn }
  /** The caller spoke over the agent without taking the turn ("uh-huh"); the agent keeps talking. */
  | { type: 'backchannel'; text: string }

/**
 * Turn-taking for one call: endpointing plus barge-in. Caller speech over the agent pauses the
 * agent at once (the caller is heard stopping it within a VAD window); the barge-in rule then
 * either stops the agent for good or, for a backchannel or a noise, lets it play on. Pure apart
 * from telling the current SpeechHandle to stop; the session does the IO.
 */
export class TurnController {
  private readonly endpointer: Endpointer
  private speech: SpeechHandle | undefined
  private speechMs = 0
  private interruptedThisUtterance = false
  private overlapping = false
  /** A backchannel ended before the STT finished its words: its final (and interims) are dropped, until then at most. */
  private discarding = false
  private discardUntil = 0
  private paused: SpeechHandle | undefined

  private readonly maxFinalWaitMs: number

  constructor(
    endpointing: EndpointingParams,
    private readonly bargeIn: BargeInParams,
    targets: SilenceTargets = silenceTargets('normal'),
  ) {
    this.endpointer = new Endpointer(endpointing, targets)
    this.maxFinalWaitMs = endpointing.maxFinalWaitMs
  }

  /** The agent started saying something; caller speech is now weighed for barge-in. */
  agentSpeaking(speech: SpeechHandle): void {
    this.speech = speech
  }

  get agentIsSpeaking(): boolean {
    return this.speech?.state === 'speaking'
  }

  /** A caller turn is under way and not yet decided (keys pressed now come after it). */
  get turnPending(): boolean {
    return this.endpointer.pending && !this.discarding
  }

  get pendingSince(): number | undefined {
    return this.endpointer.pendingSince
  }

  /** What the caller said so far in this turn, when no more words are expected from the STT. */
  get settledText(): string | undefined {
    // speech over the agent that has not interrupted it is not a turn (yet): nothing to answer
    if (this.discarding || (this.overlapping && !this.interruptedThisUtterance && this.agentIsSpeaking)) return undefined
    return this.endpointer.settledText
  }

  get transcriptSoFar(): string {
    return this.endpointer.transcriptSoFar
  }

  silenceTargetMs(answers?: boolean): number {
    return this.endpointer.silenceTargetMs(answers)
  }

  handle(input: TurnInput, nowMs: number): TurnOutput[] {
    const out: TurnOutput[] = []
    switch (input.type) {
      case 'vad_onset':
        if (!this.endpointer.userSpeaking) this.hold(nowMs, out)
        break
      case 'vad_quiet':
        if (!this.endpointer.userSpeaking) this.resume(out)
        break
      case 'vad_start':
        this.discarding = false
        this.interruptedThisUtterance = false
        this.speechMs = 0
        this.overlapping = this.agentIsSpeaking
        this.endpointer.vadSpeechStart()
        this.pause(nowMs, out)
        break
      case 'vad_progress':
        this.speechMs = input.speechMs
        this.endpointer.vadSilence(input.silenceStartMs)
        this.weighBargeIn(nowMs, out)
        break
      case 'stt_open':
        this.endpointer.sttOpened()
        break
      case 'stt_interim':
        if (this.discarding) break
        this.endpointer.sttInterim(input.text)
        this.weighBargeIn(nowMs, out)
        break
      case 'stt_final': {
        if (this.discarding) {
          // the backchannel's own final: later words are the caller's next utterance
          this.discarding = false
          this.endpointer.sttClosed()
          break
        }
        const turn = this.endpointer.sttFinal(input.text, nowMs)
        this.weighBargeIn(nowMs, out)
        if (turn) this.commit(turn, out)
        break
      }
      case 'vad_end': {
        // words the STT may still change ("so" for an "uh-huh") wait for their final, the agent held
        const guessed = this.endpointer.tentative && !isBackchannel(this.endpointer.transcriptSoFar, this.bargeIn.backchannels)
        if (this.overlapping && !this.interruptedThisUtterance && this.agentIsSpeaking && !guessed) {
          // spoke over the agent without interrupting: a backchannel or noise, never a turn
          out.push({ type: 'backchannel', text: this.endpointer.transcriptSoFar })
          // words still to come for it, unless its final is in already (a streaming STT is often first)
          this.discarding = this.endpointer.settledText === undefined
          this.discardUntil = nowMs + this.maxFinalWaitMs
          this.endpointer.vadSpeechEnd(input.atMs, nowMs)
          this.endpointer.reset()
          this.resume(out)
          break
        }
        const turn = this.endpointer.vadSpeechEnd(input.atMs, nowMs)
        if (turn) this.commit(turn, out)
        break
      }
      case 'tick': {
        if (this.discarding && nowMs >= this.discardUntil) this.discarding = false
        const turn = this.endpointer.tick(nowMs)
        if (turn) this.commit(turn, out)
        break
      }
    }
    return out
  }

  private pause(nowMs: number, out: TurnOutput[]): void {
    if (this.overlapping) this.hold(nowMs, out)
  }

  private hold(nowMs: number, out: TurnOutput[]): void {
    const speech = this.speech
    if (!speech || speech.state !== 'speaking' || !speech.allowInterruptions || this.paused) return
    this.paused = speech
    out.push({ type: 'pause', speech, atMs: nowMs })
  }

  private resume(out: TurnOutput[]): void {
    const speech = this.paused
    this.paused = undefined
    if (speech?.state === 'speaking') out.push({ type: 'resume', speech })
  }

  private weighBargeIn(nowMs: number, out: TurnOutput[]): void {
    const speech = this.speech
    if (!speech || speech.state !== 'speaking' || !this.endpointer.userSpeaking || !this.overlapping) return
    if (!speech.allowInterruptions) return
    const decision = bargeInDecision(this.bargeIn, { speechMs: this.speechMs, transcript: this.endpointer.transcriptSoFar, tentative: this.endpointer.tentative })
    if (decision === 'ignore') return this.resume(out)
    if (decision === 'interrupt') this.interrupt(speech, nowMs, out)
  }

  private interrupt(speech: SpeechHandle, atMs: number, out: TurnOutput[]): void {
    if (!speech.interrupt()) return
    this.paused = undefined
    this.interruptedThisUtterance = true
    out.push({ type: 'interrupt', speech, playedText: speech.playedText, atMs })
  }

  private commit(turn: EndOfTurn, out: TurnOutput[]): void {
    const speech = this.speech
    if (this.overlapping && !this.interruptedThisUtterance && speech?.state === 'speaking') {
      // said over the agent and decided only now, on the final words
      if (isBackchannel(turn.text, this.bargeIn.backchannels)) {
        this.overlapping = false
        out.push({ type: 'backchannel', text: turn.text })
        return this.resume(out)
      }
      if (speech.allowInterruptions) this.interrupt(speech, turn.decidedAtMs, out)
    }
    this.overlapping = false
    out.push({ type: 'user_turn', turn })
  }
}
