import { llmBrain } from '../../../../src/realtime/voice/brain/index.ts'
import type { AudioFrame } from '../../../../src/realtime/voice/audio.ts'
import { type AgentProfile, type Brain, type EndReason, VoiceSession } from '../../../../src/realtime/voice/session/index.ts'
import { DEFAULT_BARGE_IN } from '../../../../src/realtime/voice/turn/index.ts'
import { EnergyVad } from '../../../../src/realtime/voice/vad/index.ts'
import type { Stt } from '../../../../src/realtime/voice/stt/index.ts'
import { ScriptedLlm, ScriptedStt, type ScriptedTurn, ToneTts } from '../../../helpers/scripted-engines.ts'

export const RATE = 8000

export const baseAgent: AgentProfile = {
  systemPrompt: 'You are the receptionist of {{business}}. The caller is {{caller}}.',
  firstSpeaker: 'user',
  welcomeMessage: 'Hello, {{business}} here.',
  variables: { business: 'Acme Dental', caller: '+15550100' },
  fallbackMessage: 'Sorry, something went wrong. Goodbye.',
  repromptMessage: 'Are you still there?',
  goodbyeMessage: 'Thanks for calling, goodbye.',
  silenceTimeoutMs: 8000,
  maxDurationMs: 120_000,
  tools: [],
}

/**
 * A call on a virtual clock: every 20 ms the caller's frame (a loud tone while "speaking",
 * silence otherwise) is pushed, the session ticks, and pending promises settle. No sockets.
 */
export class Timeline {
  now = 0
  readonly sent: { atMs: number; frame: AudioFrame }[] = []
  hangup: { reason: EndReason; atMs: number } | undefined
  readonly session: VoiceSession
  readonly llm: ScriptedLlm
  readonly tts: ToneTts
  private readonly speaking: [number, number][] = []
  /** With `media`: frames the call's media holds, sent one per 20 ms (what hooks.flush drops). */
  readonly media: AudioFrame[] | undefined
  /** Frames dropped from the media by flushes. */
  flushedFrames = 0
  private readonly keys: [number, string][] = []
  /** What the session's turn hooks said, in order: each turn's number, and its figures as they filled in. */
  readonly turnHooks: { hook: 'turn' | 'turnMeasured'; turn: number; voiceToVoiceMs?: number }[] = []
  /** A supervisor's hold, as the call's conversation applies it: no ticks and no caller audio while set. */
  held = false

  constructor(opts: { llm: ScriptedTurn[]; stt: (string | null)[] | Stt; agent?: Partial<AgentProfile>; brain?: Brain; media?: boolean; tts?: ToneTts }) {
    this.tts = opts.tts ?? new ToneTts(RATE)
    this.media = opts.media ? [] : undefined
    this.llm = new ScriptedLlm(opts.llm)
    const agent = { ...baseAgent, ...opts.agent }
    this.session = new VoiceSession({
      engines: { vad: new EnergyVad(), stt: Array.isArray(opts.stt) ? new ScriptedStt(opts.stt) : opts.stt, tts: this.tts },
      brain: opts.brain ?? llmBrain(this.llm, agent),
      settings: {
        vad: { startThreshold: 0.5, stopThreshold: 0.35, minSpeechMs: 60, minSilenceMs: 300 },
        endpointing: { maxFinalWaitMs: 1000, useInterimOnTimeout: true },
        bargeIn: { ...DEFAULT_BARGE_IN },
      },
      agent,
      hooks: {
        send: (frame) => (this.media ? this.media.push(frame) : this.sent.push({ atMs: this.now, frame })),
        flush: () => {
          const n = this.media?.length ?? 0
          this.flushedFrames += n
          this.media?.splice(0)
          return n * 20
        },
        hangup: (reason) => {
          this.hangup = { reason, atMs: this.now }
        },
        turn: (_text, latency, turn) => this.turnHooks.push({ hook: 'turn', turn, voiceToVoiceMs: latency.voiceToVoiceMs }),
        turnMeasured: (turn, latency) => this.turnHooks.push({ hook: 'turnMeasured', turn, voiceToVoiceMs: latency.voiceToVoiceMs }),
      },
      sampleRate: RATE,
      now: () => this.now,
    })
  }

  /** The caller presses `key` at `atMs`. */
  callerPresses(atMs: number, key: string): this {
    this.keys.push([atMs, key])
    return this
  }

  /** The caller talks from `fromMs` for `durMs`. */
  callerSays(fromMs: number, durMs: number): this {
    this.speaking.push([fromMs, fromMs + durMs])
    return this
  }

  start(): this {
    this.session.start()
    return this
  }

  async runUntil(endMs: number, stopOnHangup = true): Promise<void> {
    while (this.now < endMs) {
      this.now += 20
      const loud = this.speaking.some(([a, b]) => this.now > a && this.now <= b)
      const samples = new Int16Array(RATE / 50)
      if (loud) for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 200 * i) / RATE))
      if (!this.held) {
        this.session.pushAudio({ samples, sampleRate: RATE })
        for (const [at, key] of this.keys) if (at > this.now - 20 && at <= this.now) this.session.pushDtmf(key)
        this.session.tick()
      }
      // the media sends the oldest frame it holds each 20 ms
      const out = this.media?.shift()
      if (out) this.sent.push({ atMs: this.now, frame: out })
      // let engine promises (all in-process, none timed) settle before the next 20 ms
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
      if (stopOnHangup && this.hangup) return
    }
  }

  /** Clock times at which agent frames were sent within [from, to). */
  sentBetween(from: number, to: number): number {
    return this.sent.filter((s) => s.atMs >= from && s.atMs < to).length
  }

  lastSentAt(): number {
    return this.sent.at(-1)?.atMs ?? -1
  }
}
