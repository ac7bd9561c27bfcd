import type { AudioFrame } from '../audio.ts'
import { TurnController, type TurnOutput } from '../turn/controller.ts'
import { silenceTargets } from '../turn/silence.ts'
import type { SpeechHandle } from '../turn/speech-handle.ts'
import type { PrefetchTts } from '../tts/prefetch.ts'
import { DEFAULT_ONSET } from '../vad/onset.ts'
import { Listener } from './listen.ts'
import { Speculator } from './speculate.ts'
import type { AgentProfile, Brain, SessionEngines, SessionSettings, SessionUsage } from './types.ts'

export interface HearingEvents {
  /** What turn-taking decided (pause, resume, interrupt, a caller turn, a backchannel). */
  decided(outputs: TurnOutput[]): void
  speaking(on: boolean, atMs: number): void
  failed(provider: string, error: string): void
}

/**
 * The caller's side of a call: the listener (VAD, STT), turn-taking, and the look-ahead that
 * adapts the endpoint to the words and prepares the answer's first sentence.
 */
export class Hearing {
  private readonly controller: TurnController
  private readonly listener: Listener
  private readonly speculator: Speculator
  private closed = false

  constructor(
    o: { engines: SessionEngines; settings: SessionSettings; agent: AgentProfile; brain: Brain; now: () => number },
    usage: SessionUsage,
    tts: PrefetchTts,
    fill: (text: string) => string,
    private readonly on: HearingEvents,
  ) {
    const targets = silenceTargets(o.agent.endpointing)
    this.controller = new TurnController(o.settings.endpointing, o.settings.bargeIn, targets)
    this.speculator = new Speculator(o.brain, tts, usage, fill, () => this.adapt())
    const listen = {
      input: (input: Parameters<TurnController['handle']>[0]) => {
        if (this.closed) return
        // the caller goes on: a sentence prepared for the shorter turn is not wanted
        if (input.type === 'vad_start' || (input.type === 'vad_progress' && input.silenceStartMs === undefined)) this.speculator.discard()
        this.on.decided(this.controller.handle(input, o.now()))
        this.adapt()
      },
      speaking: (on: boolean, atMs: number) => this.on.speaking(on, atMs),
      failed: (provider: string, error: string) => this.on.failed(provider, error),
    }
    const onsetDbfs = o.settings.bargeIn.onsetDbfs ?? DEFAULT_ONSET.minDbfs
    this.listener = new Listener(o.engines, o.settings.vad, usage, o.now, listen, { ...DEFAULT_ONSET, minDbfs: onsetDbfs })
  }

  start(): void {
    this.listener.setSilenceTarget(this.controller.silenceTargetMs())
    this.listener.start()
  }

  push(frame: AudioFrame, inputDelayMs: number): void {
    this.listener.push(frame, inputDelayMs)
  }

  tick(nowMs: number): void {
    this.on.decided(this.controller.handle({ type: 'tick' }, nowMs))
  }

  agentSpeaking(speech: SpeechHandle): void {
    this.controller.agentSpeaking(speech)
  }

  get agentIsSpeaking(): boolean {
    return this.controller.agentIsSpeaking
  }

  /** A caller turn is under way and not yet decided. */
  get turnPending(): boolean {
    return this.controller.turnPending
  }

  get lastFinalAt(): number | undefined {
    return this.listener.lastFinalAt
  }

  /** A caller turn was committed: the look-ahead starts over. */
  committed(): void {
    this.speculator.committed()
  }

  close(): void {
    this.closed = true
    this.listener.close()
  }

  /** The words so far set the silence that ends the turn; settled words in a silence get their answer ready. */
  private adapt(): void {
    if (this.closed) return
    const words = this.controller.transcriptSoFar
    const answers = words ? this.speculator.answers(words) : undefined
    this.listener.setSilenceTarget(this.controller.silenceTargetMs(answers))
    const settled = this.controller.settledText
    // pendingSince is defined only once the caller is silent
    if (settled && this.controller.turnPending && this.controller.pendingSince !== undefined) this.speculator.prepare(settled)
  }
}
