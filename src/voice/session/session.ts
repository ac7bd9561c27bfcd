import type { AudioFrame } from '../audio.ts'
import type { ChatMessage } from '../llm/contract.ts'
import { streamReply } from '../reply.ts'
import type { SttEvent, SttStream } from '../stt/contract.ts'
import { TurnController, type TurnOutput } from '../turn/controller.ts'
import type { EndOfTurn } from '../turn/endpointing.ts'
import { summarizeTurns, type TurnLatency } from '../turn/metrics.ts'
import { splitSentences } from '../turn/sentences.ts'
import { SpeechHandle } from '../turn/speech-handle.ts'
import type { VadEvent } from '../vad/contract.ts'
import { createVadStream, type VadStream } from '../vad/stream.ts'
import { Playout } from './playout.ts'
import { endMessage, runTool } from './tools.ts'
import { fillTemplate } from './template.ts'
import {
  type AgentProfile,
  type Brain,
  END_CALL_TOOL,
  type EndReason,
  type SessionEngines,
  type SessionHooks,
  type SessionReport,
  type SessionSettings,
  type SessionUsage,
  type TranscriptItem,
} from './types.ts'

const MAX_HISTORY = 40
const MAX_TRANSCRIPT = 2000
const MAX_TOOL_ROUNDS = 3
/** A spoken reply is short; this also bounds the audio one reply can queue. */
const MAX_REPLY_TOKENS = 400
const PREROLL_MS = 400
/** Digits typed without '#' count as one entry after this pause. */
export const DTMF_PAUSE_MS = 1500

export interface SessionOptions {
  engines: SessionEngines
  settings: SessionSettings
  agent: AgentProfile
  hooks: SessionHooks
  sampleRate: number
  /** The session clock in ms; `tick()` must be called every 20 ms of it. */
  now: () => number
  /** Runs the conversation instead of the LLM (welcome message and replies are then its job). */
  brain?: Brain
}

/**
 * One call's conversation: caller audio in, agent audio out, turn-taking, the LLM with tools,
 * guards (silence, maximum duration, provider failure) and the call's transcript and metrics.
 */
export class VoiceSession {
  private readonly o: SessionOptions
  private readonly playout: Playout
  private readonly controller: TurnController
  private readonly vad: VadStream
  private sttStream: SttStream | undefined
  private readonly preroll: AudioFrame[] = []
  private startedAt = 0
  private audioStartAt: number | undefined
  private audioMs = 0
  private readonly history: ChatMessage[] = []
  private readonly transcript: TranscriptItem[] = []
  private readonly turns: TurnLatency[] = []
  private readonly usage: SessionUsage = { llm: [], tts: [], stt: [] }
  private readonly firstFrameAt = new WeakMap<SpeechHandle, number>()
  /** The assistant message of a speech, cut to what was heard if the caller interrupts it. */
  private readonly spoken = new WeakMap<SpeechHandle, { role: 'assistant'; content: string }>()
  private current: SpeechHandle | undefined
  private replying: Promise<void> | undefined
  private userSpeechStartAt = 0
  private lastActivityAt = 0
  private reprompted = false
  private closing = false
  private endReason: EndReason | undefined
  private endedAt: number | undefined
  private pendingTurn: { turn: EndOfTurn; sttFinalAt?: number } | undefined
  private lastFinalAt: number | undefined
  private userSpeaking = false
  private dtmf = ''
  private dtmfStartAt = 0
  private dtmfLastAt = 0

  constructor(opts: SessionOptions) {
    this.o = opts
    this.playout = new Playout(opts.sampleRate, (f) => opts.hooks.send(f), (speech, at) => this.firstFrameAt.set(speech, at))
    this.controller = new TurnController(opts.settings.endpointing, opts.settings.bargeIn)
    this.vad = createVadStream(opts.engines.vad, opts.settings.vad)
  }

  get ended(): boolean {
    return this.endedAt !== undefined
  }

  start(): void {
    this.startedAt = this.lastActivityAt = this.o.now()
    void this.consumeVad()
    const stt = this.o.engines.stt
    if (stt?.capabilities.streaming) this.sttStream = this.openStt()
    if (this.o.brain) {
      this.o.brain.start({ say: (text) => this.sayFromBrain(text), end: (reason, lastLine) => this.finish(reason, lastLine) })
      return
    }
    if (this.o.agent.firstSpeaker === 'agent' && this.o.agent.welcomeMessage.trim()) {
      const welcome = this.fill(this.o.agent.welcomeMessage)
      const message = { role: 'assistant' as const, content: welcome }
      this.history.push(message)
      void this.say(welcome, this.o.agent.welcomeInterruptible ?? true, message)
    }
  }

  /** Caller audio from the media layer, at the session's sample rate. */
  pushAudio(frame: AudioFrame): void {
    if (this.ended) return
    this.audioStartAt ??= this.o.now() - (frame.samples.length * 1000) / frame.sampleRate
    this.audioMs += (frame.samples.length * 1000) / frame.sampleRate
    this.vad.push(frame)
    const stt = this.o.engines.stt
    if (stt && !stt.capabilities.streaming) {
      this.preroll.push(frame)
      while (this.preroll.length * 20 > PREROLL_MS) this.preroll.shift()
    }
    this.sttStream?.push(frame)
  }

  /** Advances playout and the guards; call every 20 ms. */
  tick(): void {
    if (this.ended) return
    const now = this.o.now()
    this.playout.tick(now)
    this.apply(this.controller.handle({ type: 'tick' }, now))
    if (this.dtmf && now - this.dtmfLastAt >= DTMF_PAUSE_MS) this.commitDtmf(now)
    if (this.closing) return
    if (now - this.startedAt >= this.o.agent.maxDurationMs) {
      void this.finish('max_duration', this.fill(this.o.agent.goodbyeMessage))
      return
    }
    const quiet = !this.controller.agentIsSpeaking && this.playout.idle && !this.replying && !this.userSpeaking
    if (quiet && now - this.lastActivityAt >= this.o.agent.silenceTimeoutMs) {
      if (this.reprompted) void this.finish('silence_timeout')
      else {
        this.reprompted = true
        this.lastActivityAt = now
        void this.say(this.fill(this.o.agent.repromptMessage), true)
      }
    }
  }

  /** A DTMF key from the caller (RFC 4733 or SIP INFO): digits are collected until '#' or a pause. */
  pushDtmf(key: string): void {
    if (this.ended || !/^[0-9*#A-D]$/.test(key)) return
    const now = this.o.now()
    this.lastActivityAt = now
    this.reprompted = false
    if (this.dtmf.length === 0) this.dtmfStartAt = now
    this.dtmfLastAt = now
    this.o.brain?.onDtmf(key)
    // '#' ends an entry; pressed alone it is the entry
    if (key === '#') {
      if (!this.dtmf) this.dtmf = '#'
      this.commitDtmf(now)
    } else this.dtmf += key
  }

  private commitDtmf(now: number): void {
    const digits = this.dtmf
    this.dtmf = ''
    if (!digits) return
    this.userSpeechStartAt = this.dtmfStartAt
    const turn = { text: `[DTMF] ${digits}`, speechEndMs: this.dtmfLastAt, decidedAtMs: now, hadFinal: true }
    // a brain got each key as it was pressed; the entry only goes into the transcript
    if (this.o.brain) this.addTranscript('user', turn.text, this.userSpeechStartAt)
    else this.onUserTurn(turn)
  }

  /** The caller hung up. */
  callerHungUp(): void {
    this.end('caller_hangup')
  }

  report(): SessionReport {
    return {
      transcript: [...this.transcript].sort((a, b) => a.timestamp - b.timestamp),
      turns: [...this.turns],
      latency: summarizeTurns(this.turns),
      usage: structuredClone(this.usage),
      endReason: this.endReason,
      durationMs: (this.endedAt ?? this.o.now()) - this.startedAt,
    }
  }

  private fill(text: string): string {
    return fillTemplate(text, this.o.agent.variables)
  }

  private seconds(atMs: number): number {
    return Math.round(atMs - this.startedAt) / 1000
  }

  private clockOf(audioMs: number): number {
    return (this.audioStartAt ?? this.startedAt) + audioMs
  }

  private async consumeVad(): Promise<void> {
    for await (const ev of this.vad) {
      if (ev.type === 'error') {
        // without a VAD the caller can no longer be heard
        if (!this.ended) void this.finish('provider_error', this.fill(this.o.agent.fallbackMessage))
        break
      }
      this.onVad(ev)
    }
  }

  private onVad(ev: VadEvent): void {
    const now = this.o.now()
    if (ev.type === 'speech_start') {
      this.userSpeaking = true
      this.reprompted = false
      this.userSpeechStartAt = this.clockOf(ev.atMs)
      this.lastActivityAt = now
      const stt = this.o.engines.stt
      if (stt && !stt.capabilities.streaming) {
        this.sttStream?.end()
        this.sttStream = this.openStt()
        for (const f of this.preroll) this.sttStream.push(f)
      }
      this.apply(this.controller.handle({ type: 'vad_start', atMs: this.clockOf(ev.atMs) }, now))
    } else if (ev.type === 'progress') {
      if (ev.speaking) this.apply(this.controller.handle({ type: 'vad_progress', speechMs: ev.speechMs }, now))
    } else {
      this.userSpeaking = false
      this.lastActivityAt = now
      if (this.sttStream && !this.o.engines.stt?.capabilities.streaming) {
        this.sttStream.end()
        this.sttStream = undefined
      }
      this.apply(this.controller.handle({ type: 'vad_end', atMs: this.clockOf(ev.atMs) }, now))
    }
  }

  private openStt(): SttStream {
    const stream = this.o.engines.stt!.stream()
    const provider = this.o.engines.stt!.provider
    void (async () => {
      for await (const ev of stream) {
        if (ev.type === 'error') {
          // an STT that is gone for good leaves the caller unheard: say so and hang up
          if (!ev.willRetry && !this.ended) void this.finish('provider_error', this.fill(this.o.agent.fallbackMessage))
        } else this.onStt(ev, provider)
      }
    })()
    return stream
  }

  private onStt(ev: SttEvent, provider: string): void {
    if (this.ended) return
    const now = this.o.now()
    if (ev.type === 'interim') this.apply(this.controller.handle({ type: 'stt_interim', text: ev.text }, now))
    else if (ev.type === 'final') {
      this.lastFinalAt = now
      this.apply(this.controller.handle({ type: 'stt_final', text: ev.text }, now))
    } else if (ev.type === 'usage') this.usage.stt.push({ provider, audioMs: ev.audioMs })
  }

  private apply(outputs: TurnOutput[]): void {
    for (const out of outputs) {
      if (out.type === 'interrupt') {
        this.playout.stop()
        const message = this.spoken.get(out.speech)
        if (message) message.content = out.speech.playedText
      }
      else if (out.type === 'user_turn') this.onUserTurn(out.turn)
    }
  }

  private onUserTurn(turn: EndOfTurn): void {
    if (this.closing) return
    this.addTranscript('user', turn.text, this.userSpeechStartAt)
    if (this.o.brain) {
      this.o.brain.onUserText(turn.text)
      return
    }
    this.history.push({ role: 'user', content: turn.text })
    // a new turn before the previous answer was heard: drop that answer
    if (this.current?.state === 'speaking' && !this.firstFrameAt.has(this.current)) {
      this.current.interrupt()
      this.playout.stop()
    }
    this.pendingTurn = { turn, sttFinalAt: this.lastFinalAt }
    const previous = this.replying ?? Promise.resolve()
    const run = previous
      .then(() => this.respond())
      // a bug must not leave the caller in silence either
      .catch(() => this.finish('provider_error', this.fill(this.o.agent.fallbackMessage)))
    this.replying = run
    void run.finally(() => {
      if (this.replying === run) this.replying = undefined
    })
  }

  private async respond(): Promise<void> {
    const pending = this.pendingTurn
    this.pendingTurn = undefined
    if (!pending || this.closing) return
    const { turn } = pending
    const latency: TurnLatency = {
      endpointingMs: turn.decidedAtMs - turn.speechEndMs,
      sttFinalMs: pending.sttFinalAt !== undefined ? Math.max(0, pending.sttFinalAt - turn.speechEndMs) : undefined,
    }
    this.turns.push(latency)
    const llm = this.o.engines.llm
    if (!llm) throw new Error('no LLM to reply with')
    const tools = [END_CALL_TOOL, ...this.o.agent.tools.map((t) => t.spec)]
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      const speech = this.beginSpeech(true)
      const r = await streamReply({
        llm,
        request: { messages: [{ role: 'system', content: this.fill(this.o.agent.systemPrompt) }, ...this.history.slice(-MAX_HISTORY)], tools, maxTokens: MAX_REPLY_TOKENS },
        tts: this.o.engines.tts,
        speech,
        onAudio: (f) => this.playout.enqueue(f, speech, this.o.now()),
        now: this.o.now,
      })
      this.playout.flush(speech)
      this.usage.llm.push({ model: llm.model, inputTokens: r.inputTokens, outputTokens: r.outputTokens })
      if (r.ttsCharacters > 0) this.usage.tts.push({ provider: this.o.engines.tts.provider, characters: r.ttsCharacters, audioMs: r.ttsAudioMs })
      if (round === 0) {
        latency.llmTtftMs = r.llmTtftMs
        latency.ttsTtfbMs = r.ttsTtfbMs
        void speech.done.then(() => {
          const first = this.firstFrameAt.get(speech)
          if (first !== undefined) latency.voiceToVoiceMs = first - turn.speechEndMs
        })
      }
      if (r.outcome === 'failed') {
        speech.interrupt()
        await this.finish('provider_error', this.fill(this.o.agent.fallbackMessage))
        return
      }
      if (r.outcome === 'interrupted') {
        this.history.push({ role: 'assistant', content: speech.playedText })
        return
      }
      const message = { role: 'assistant' as const, content: r.text, ...(r.toolCalls.length ? { toolCalls: r.toolCalls } : {}) }
      this.history.push(message)
      this.spoken.set(speech, message)
      if (r.toolCalls.length === 0) return
      const end = r.toolCalls.find((c) => c.name === END_CALL_TOOL.name)
      if (end) {
        await speech.done
        // say goodbye: the tool's message, else the agent's line when the model said nothing
        await this.finish('agent_hangup', endMessage(end) ?? (r.text.trim() ? undefined : this.fill(this.o.agent.goodbyeMessage)))
        return
      }
      for (const call of r.toolCalls) {
        // a transfer must not cut off what the agent is saying about it
        if (this.o.agent.tools.find((t) => t.spec.name === call.name)?.afterSpeech) await speech.done
        this.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content: await runTool(this.o.agent.tools, call) })
      }
      if (speech.state === 'interrupted') return
    }
  }

  private beginSpeech(interruptible: boolean): SpeechHandle {
    const speech = new SpeechHandle({ allowInterruptions: interruptible })
    this.current = speech
    this.controller.agentSpeaking(speech)
    void speech.done.then(() => {
      this.lastActivityAt = this.o.now()
      const first = this.firstFrameAt.get(speech)
      if (first !== undefined && speech.playedText) this.addTranscript('agent', speech.playedText, first)
    })
    return speech
  }

  /** Speaks fixed text; resolves when it has been played (or interrupted); false if TTS failed. */
  private async say(text: string, interruptible: boolean, message?: { role: 'assistant'; content: string }): Promise<boolean> {
    const speech = this.beginSpeech(interruptible)
    if (message) this.spoken.set(speech, message)
    let ok = true
    for (const sentence of splitSentences(text)) {
      if (speech.state !== 'speaking') break
      speech.addSegment(sentence, 0, false)
      for await (const ev of this.o.engines.tts.synthesize(sentence)) {
        if (ev.type === 'audio') {
          speech.addAudio((ev.frame.samples.length * 1000) / ev.frame.sampleRate)
          this.playout.enqueue(ev.frame, speech, this.o.now())
        } else if (ev.type === 'done') {
          speech.completeSegment()
          this.usage.tts.push({ provider: this.o.engines.tts.provider, characters: ev.characters, audioMs: ev.audioMs })
        } else if (ev.type === 'error' && !ev.willRetry) ok = false
      }
      if (!ok) break
    }
    this.playout.flush(speech)
    speech.finishInput()
    if (!ok) speech.interrupt()
    await speech.done
    return ok
  }

  private async sayFromBrain(text: string): Promise<boolean> {
    if (this.closing) return false
    const filled = this.fill(text)
    const message = { role: 'assistant' as const, content: filled }
    this.history.push(message)
    return this.say(filled, true, message)
  }

  /** Says a last line (not interruptible), waits for it to play, then ends the call. */
  private async finish(reason: EndReason, lastLine?: string): Promise<void> {
    if (this.closing) return
    this.closing = true
    this.current?.interrupt()
    this.playout.stop()
    if (lastLine?.trim()) await this.say(lastLine, false)
    this.end(reason)
  }

  private end(reason: EndReason): void {
    if (this.ended) return
    this.closing = true
    this.endReason = reason
    this.endedAt = this.o.now()
    // keys pressed but not yet complete still belong in the transcript
    if (this.dtmf) this.addTranscript('user', `[DTMF] ${this.dtmf}`, this.dtmfStartAt)
    this.dtmf = ''
    this.o.brain?.stop()
    this.current?.interrupt()
    this.playout.stop()
    this.vad.close()
    this.sttStream?.close()
    this.o.hooks.hangup(reason)
  }

  private addTranscript(role: 'agent' | 'user', text: string, atMs: number): void {
    if (this.transcript.length >= MAX_TRANSCRIPT) this.transcript.shift()
    this.transcript.push({ role, text, timestamp: this.seconds(atMs) })
  }
}
