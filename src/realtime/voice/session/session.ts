import type { AudioFrame } from '../audio.ts'
import type { TurnOutput } from '../turn/controller.ts'
import type { EndOfTurn } from '../turn/endpointing.ts'
import { summarizeTurns } from '../turn/metrics.ts'
import { SpeechHandle } from '../turn/speech-handle.ts'
import { Keypad } from './keypad.ts'
import { silenced, welcomeOutcome } from './outcome.ts'
import { PrefetchTts } from '../tts/prefetch.ts'
import { Hearing } from './hearing.ts'
import { Playout } from './playout.ts'
import { sayText } from './say.ts'
import { fillTemplate } from '../../../platform/template.ts'
import { TurnRecorder } from './turns.ts'
import { Transcript } from './transcript.ts'
import type { AgentProfile, Brain, BrainHost, EndReason, SessionEngines, SessionHooks, SessionReport, SessionSettings, SessionUsage, SpeechOut, TranscriptItem, TranscriptSource } from './types.ts'

export interface SessionOptions {
  engines: SessionEngines
  settings: SessionSettings
  agent: AgentProfile
  hooks: SessionHooks
  sampleRate: number
  lineRateHz?: number // the line's audio rate, when narrower (8000 on G.711)
  /** The session clock in ms; `tick()` must be called every 20 ms of it. */
  now: () => number
  /** What decides the agent's words: the LLM, a workflow, or nothing. */
  brain: Brain
}

/**
 * One call's conversation: caller audio in, agent audio out, turn-taking, guards (silence,
 * maximum duration, provider failure), the transcript and per-turn metrics. What the agent says
 * is its brain's business.
 */
export class VoiceSession {
  private readonly o: SessionOptions
  private readonly brain: Brain
  private readonly playout: Playout
  /** The caller's side: listening, turn-taking and the look-ahead. */
  private readonly hearing: Hearing
  private startedAt = 0
  private readonly transcript: Transcript
  private readonly turns = new TurnRecorder((turn, latency) => this.o.hooks.turnMeasured?.(turn, latency))
  private readonly usage: SessionUsage = { llm: [], tts: [], stt: [] }
  private readonly firstFrameAt = new WeakMap<SpeechHandle, number>()
  private readonly voiced = new WeakSet<SpeechHandle>()
  private current: SpeechHandle | undefined
  private userSpeechStartAt = 0
  private lastActivityAt = 0
  private reprompted = false
  private closing = false
  private endReason: EndReason | undefined
  private endedAt: number | undefined
  private userSpeaking = false
  private readonly keypad: Keypad
  /** The call's voice, able to synthesise a sentence ahead of the turn it answers. */
  private readonly tts: PrefetchTts
  /** Agent audio handed to the call so far; the first speech (the welcome when the agent speaks first), and whether the caller cut it. */
  private agentAudioMs = 0
  private first: SpeechHandle | undefined
  private firstBargedIn = false

  constructor(opts: SessionOptions) {
    this.o = opts
    this.brain = opts.brain
    this.transcript = new Transcript(() => this.startedAt, (item) => opts.hooks.transcribed?.(item))
    const send = (f: AudioFrame) => {
      this.agentAudioMs += (f.samples.length * 1000) / f.sampleRate
      opts.hooks.send(f)
    }
    this.playout = new Playout(opts.sampleRate, send, {
      firstFrame: (speech, at) => {
        this.firstFrameAt.set(speech, at)
        this.turns.firstFrame(speech, at)
      },
      firstVoiced: (speech, at) => {
        this.voiced.add(speech)
        this.turns.firstVoiced(speech, at)
      },
      flushSink: () => opts.hooks.flush?.() ?? 0,
    }, 20, opts.lineRateHz)
    this.keypad = new Keypad(opts.settings.endpointing.maxFinalWaitMs, {
      speechPending: () => this.hearing.turnPending,
      key: (key, at) => {
        this.reprompted = false
        if (this.brain.answersKeys) this.turns.key(at)
        this.brain.onDtmf(key)
      },
      entry: (entry, now) => this.commitDtmf(entry, now),
    })
    this.tts = new PrefetchTts(opts.engines.tts, (u) => this.usage.tts.push({ provider: opts.engines.tts.provider, ...u }))
    this.hearing = new Hearing(opts, this.usage, this.tts, (t) => this.fill(t), {
      decided: (outputs) => this.ended || this.apply(outputs),
      speaking: (on, atMs) => this.onSpeaking(on, atMs),
      failed: (provider, error) => void this.fail(provider, error),
    })
  }

  get ended(): boolean { return this.endedAt !== undefined }

  start(): void {
    this.startedAt = this.lastActivityAt = this.o.now()
    this.hearing.start()
    this.brain.start(this.host())
  }

  /** Caller audio from the media layer, at the session's sample rate; `inputDelayMs`: how long it waited there (jitter buffer). */
  pushAudio(frame: AudioFrame, inputDelayMs = 0): void {
    if (!this.ended) this.hearing.push(frame, inputDelayMs)
  }

  /** Advances playout and the guards; call every 20 ms. */
  tick(): void {
    if (this.ended) return
    const now = this.o.now()
    this.playout.tick(now)
    this.hearing.tick(now)
    this.keypad.tick(now)
    if (this.closing) return
    if (now - this.startedAt >= this.o.agent.maxDurationMs) {
      void this.finish('max_duration', this.fill(this.o.agent.goodbyeMessage))
      return
    }
    const quiet = !this.hearing.agentIsSpeaking && this.playout.idle && !this.brain.busy && !this.userSpeaking
    if (quiet && now - this.lastActivityAt >= this.o.agent.silenceTimeoutMs) {
      if (this.reprompted) void this.finish('silence_timeout')
      else {
        this.reprompted = true
        this.lastActivityAt = now
        void this.say(this.fill(this.o.agent.repromptMessage), true, false)
      }
    }
  }

  /** A DTMF key from the caller (RFC 4733 or SIP INFO): digits are collected until '#' or a pause. */
  pushDtmf(key: string): void {
    if (this.ended || !/^[0-9*#A-D]$/.test(key)) return
    const now = this.o.now()
    this.lastActivityAt = now
    this.keypad.press(key, now)
  }

  private commitDtmf(entry: { digits: string; startAt: number; lastAt: number }, now: number): void {
    this.userSpeechStartAt = entry.startAt
    this.onUserTurn({ text: `[DTMF] ${entry.digits}`, speechEndMs: entry.lastAt, decidedAtMs: now, hadFinal: true }, 'dtmf')
  }

  /** The caller hung up. */
  callerHungUp(): void {
    this.end('caller_hangup')
  }

  /** A supervisor's line (calls/actions): spoken once the agent's current speech has played, not interruptible. */
  async announce(text: string): Promise<boolean> {
    while (this.current?.state === 'speaking') await this.current.done
    return this.closing ? false : this.say(text, false, false)
  }

  /** A supervisor's hold (calls/actions), its ticks and the caller's audio stopped: playout waits, and the guards count from its end. */
  hold(on: boolean): void {
    if (on) return this.playout.pause()
    this.playout.resume(this.o.now())
    this.lastActivityAt = this.o.now()
  }

  report(): SessionReport {
    return {
      transcript: this.transcript.lines(),
      toolCalls: this.transcript.toolCalls(),
      turns: [...this.turns.turns],
      latency: summarizeTurns(this.turns.turns),
      usage: structuredClone(this.usage),
      endReason: this.endReason,
      durationMs: (this.endedAt ?? this.o.now()) - this.startedAt,
      agentAudioMs: Math.round(this.agentAudioMs),
      welcome: welcomeOutcome(this.o.agent, this.first, this.firstBargedIn),
    }
  }

  private host(): BrainHost {
    return {
      say: async (text, opts) => {
        if (this.closing) return { ok: false, speech: silenced() }
        const speech = this.beginSpeech(opts?.interruptible ?? true, true, opts?.sources)
        return { ok: await this.speakInto(speech, this.fill(text)), speech }
      },
      speak: (interruptible, sources) => this.speak(interruptible, sources),
      end: (reason, lastLine, sources) => this.finish(reason, lastLine, sources),
      fail: (provider, error) => this.fail(provider, error),
      noteLatency: (stages) => this.turns.note(stages),
      noteTool: (name, args, result) => this.transcript.tool(name, args, result, this.o.now()),
      usage: this.usage,
      fill: (text) => this.fill(text),
      now: this.o.now,
    }
  }

  private fill(text: string): string {
    return fillTemplate(text, this.o.agent.variables)
  }

  private onSpeaking(on: boolean, atMs: number): void {
    this.userSpeaking = on
    this.lastActivityAt = this.o.now()
    if (!on) return
    this.reprompted = false
    this.userSpeechStartAt = atMs
  }

  private apply(outputs: TurnOutput[]): void {
    for (const out of outputs) {
      if (out.type === 'pause') this.playout.pause()
      else if (out.type === 'resume') this.playout.resume(this.o.now())
      else if (out.type === 'interrupt') {
        if (out.speech === this.first) this.firstBargedIn = true
        this.playout.stop()
      } else if (out.type === 'user_turn') {
        this.onUserTurn(out.turn, 'speech')
        this.keypad.release(this.o.now())
      } else if (out.type === 'backchannel') this.keypad.release(this.o.now())
    }
  }

  private onUserTurn(turn: EndOfTurn, source: 'speech' | 'dtmf'): void {
    if (this.closing) return
    if (source === 'speech') this.hearing.committed()
    this.transcript.add('user', turn.text, this.userSpeechStartAt)
    // a brain that answers keys got them as pressed, and may be answering already: the entry is
    // only transcript (its turn was opened at the keys)
    if (source === 'dtmf' && this.brain.answersKeys) {
      this.o.hooks.turn?.(turn.text, this.turns.latest() ?? {}, this.turns.latestTurn())
      return this.brain.onUserTurn(turn.text, source)
    }
    // a new turn before the previous answer was heard: drop that answer
    if (this.current?.state === 'speaking' && !this.firstFrameAt.has(this.current)) {
      this.current.interrupt()
      this.playout.stop()
    }
    const latency = this.turns.open(turn, source === 'speech' ? this.hearing.lastFinalAt : undefined)
    this.o.hooks.turn?.(turn.text, latency, this.turns.latestTurn())
    this.brain.onUserTurn(turn.text, source)
  }

  /** `answers`: this speech may be the answer to the caller's last turn (not a reprompt or a last line). */
  private beginSpeech(interruptible: boolean, answers: boolean, sources?: TranscriptSource[]): SpeechHandle {
    const speech = new SpeechHandle({ allowInterruptions: interruptible })
    this.current = speech
    this.first ??= speech
    this.hearing.agentSpeaking(speech)
    if (answers) this.turns.speechBegan(speech)
    void speech.done.then(() => {
      this.lastActivityAt = this.o.now()
      this.transcript.spoken(speech, this.firstFrameAt.get(speech), this.voiced.has(speech), sources)
    })
    return speech
  }

  private speak(interruptible: boolean, sources?: TranscriptSource[]): SpeechOut {
    const speech = this.closing ? silenced() : this.beginSpeech(interruptible, true, sources)
    return {
      speech,
      tts: this.tts,
      play: (frame) => this.playout.enqueue(frame, speech, this.o.now()),
      flush: () => this.playout.flush(speech),
    }
  }

  /** Speaks fixed text; resolves when it has been played (or interrupted); false if TTS failed. */
  private say(text: string, interruptible: boolean, answers: boolean, sources?: TranscriptSource[]): Promise<boolean> {
    return this.speakInto(this.beginSpeech(interruptible, answers, sources), text)
  }

  private async speakInto(speech: SpeechHandle, text: string): Promise<boolean> {
    const tts = this.tts
    const r = await sayText(text, speech, { tts, play: (f) => this.playout.enqueue(f, speech, this.o.now()), usage: this.usage, now: this.o.now })
    this.turns.note({ ttsTtfbMs: r.ttsTtfbMs })
    this.playout.flush(speech)
    speech.finishInput()
    if (!r.ok) {
      speech.interrupt()
      this.o.hooks.providerFailed?.(tts.provider, r.error ?? 'synthesis failed')
    }
    await speech.done
    return r.ok
  }

  private async fail(provider: string, error: string): Promise<void> {
    if (this.closing) return
    this.o.hooks.providerFailed?.(provider, error)
    await this.finish('provider_error', this.fill(this.o.agent.fallbackMessage))
  }

  /** Says a last line (not interruptible), waits for it to play, then ends the call. */
  private async finish(reason: EndReason, lastLine?: string, sources?: TranscriptSource[]): Promise<void> {
    if (this.closing) return
    this.closing = true
    this.current?.interrupt()
    this.playout.stop()
    if (lastLine?.trim()) await this.say(lastLine, false, false, sources)
    this.end(reason)
  }

  private end(reason: EndReason): void {
    if (this.ended) return
    this.closing = true
    this.endReason = reason
    this.endedAt = this.o.now()
    // keys pressed but not yet complete (or still waiting for a spoken turn) belong in the transcript
    for (const entry of this.keypad.drain(this.endedAt)) this.transcript.add('user', `[DTMF] ${entry.digits}`, entry.startAt)
    this.brain.stop()
    this.current?.interrupt()
    this.playout.stop()
    this.hearing.close()
    this.o.hooks.hangup(reason)
  }
}
