import { type BargeInParams, bargeInDecision } from './barge-in.ts'
import { type EndOfTurn, Endpointer, type EndpointingParams } from './endpointing.ts'
import type { SpeechHandle } from './speech-handle.ts'

/** What the VAD and STT report, on one clock (ms since the call started). */
export type TurnInput =
  | { type: 'vad_start'; atMs: number }
  | { type: 'vad_progress'; speechMs: number }
  | { type: 'vad_end'; atMs: number }
  | { type: 'stt_interim'; text: string }
  | { type: 'stt_final'; text: string }
  | { type: 'tick' }

export type TurnOutput =
  /** Stop playback now; the agent's transcript entry becomes `playedText`. */
  | { type: 'interrupt'; speech: SpeechHandle; playedText: string; atMs: number }
  /** The caller finished a turn: answer it. */
  | { type: 'user_turn'; turn: EndOfTurn }
  /** The caller spoke over the agent without taking the turn ("uh-huh"); the agent keeps talking. */
  | { type: 'backchannel'; text: string }

/**
 * Turn-taking for one call: endpointing plus barge-in. Pure apart from telling the current
 * SpeechHandle to stop; the session does the IO (stopping playout, calling the LLM).
 */
export class TurnController {
  private readonly endpointer: Endpointer
  private speech: SpeechHandle | undefined
  private speechMs = 0
  private interruptedThisUtterance = false
  private overlapping = false
  private discarding = false

  constructor(
    endpointing: EndpointingParams,
    private readonly bargeIn: BargeInParams,
  ) {
    this.endpointer = new Endpointer(endpointing)
  }

  /** The agent started saying something; caller speech is now weighed for barge-in. */
  agentSpeaking(speech: SpeechHandle): void {
    this.speech = speech
  }

  get agentIsSpeaking(): boolean {
    return this.speech?.state === 'speaking'
  }

  handle(input: TurnInput, nowMs: number): TurnOutput[] {
    const out: TurnOutput[] = []
    switch (input.type) {
      case 'vad_start':
        this.discarding = false
        this.interruptedThisUtterance = false
        this.speechMs = 0
        this.overlapping = this.agentIsSpeaking
        this.endpointer.vadSpeechStart()
        break
      case 'vad_progress':
        this.speechMs = input.speechMs
        this.weighBargeIn(nowMs, out)
        break
      case 'stt_interim':
        if (this.discarding) break
        this.endpointer.sttInterim(input.text)
        this.weighBargeIn(nowMs, out)
        break
      case 'stt_final': {
        if (this.discarding) break
        const turn = this.endpointer.sttFinal(input.text, nowMs)
        this.weighBargeIn(nowMs, out)
        if (turn) this.commit(turn, out)
        break
      }
      case 'vad_end': {
        if (this.overlapping && !this.interruptedThisUtterance && this.agentIsSpeaking) {
          // spoke over the agent without interrupting: a backchannel or noise, never a turn
          out.push({ type: 'backchannel', text: this.endpointer.transcriptSoFar })
          this.endpointer.vadSpeechEnd(input.atMs, nowMs)
          this.endpointer.reset()
          this.discarding = true
          break
        }
        const turn = this.endpointer.vadSpeechEnd(input.atMs, nowMs)
        if (turn) this.commit(turn, out)
        break
      }
      case 'tick': {
        const turn = this.endpointer.tick(nowMs)
        if (turn) this.commit(turn, out)
        break
      }
    }
    return out
  }

  private weighBargeIn(nowMs: number, out: TurnOutput[]): void {
    const speech = this.speech
    if (!speech || speech.state !== 'speaking' || !this.endpointer.userSpeaking || !this.overlapping) return
    if (!speech.allowInterruptions) return
    const decision = bargeInDecision(this.bargeIn, { speechMs: this.speechMs, transcript: this.endpointer.transcriptSoFar })
    if (decision !== 'interrupt') return
    if (speech.interrupt()) {
      this.interruptedThisUtterance = true
      out.push({ type: 'interrupt', speech, playedText: speech.playedText, atMs: nowMs })
    }
  }

  private commit(turn: EndOfTurn, out: TurnOutput[]): void {
    this.overlapping = false
    out.push({ type: 'user_turn', turn })
  }
}
