// A call's audio and conversation in this thread: its media on the engine's clock, the voice
// session and the brain, and a transfer leg bridged to the caller. The main thread runs it
// when CALL_WORKERS is 0 (and for calls with an answer gate); a call worker runs it otherwise.
import type { Logger } from '../../../platform/log.ts'
import { ENGINE_RATE, type BoundPorts, type CallMedia, type MediaEngine, type MediaLinkFactory } from '../../../realtime/media/index.ts'
import type { NegotiatedMedia } from '../../../realtime/telephony/sdp/index.ts'
import type { CallEngines, VoiceEngines } from '../../../realtime/voice/index.ts'
import { sessionFromEngines, type Brain, type VoiceSession } from '../../../realtime/voice/session/index.ts'
import type { Llm } from '../../../realtime/voice/llm/index.ts'
import type { AnswerGate } from '../calls.service.ts'
import { brainOfCall } from './brain.ts'
import type { ActionResult, CallPlacement, CallPlacer, Conversation, ConversationEvents, ConversationInit, ConversationResult, MediaAction, WebLeg } from './conversation-types.ts'
import { answerWebOffer, type WebPeer } from '../../../realtime/webrtc/index.ts'
import type { KnowledgeQueryOptions } from './tools.ts'
import { agentProfile, type CallLines } from './profile.ts'
import { mediaFacts } from './media-facts.ts'

export interface ConversationDeps {
  media: MediaEngine
  voice: VoiceEngines
  lines: CallLines
  workflowLlm?: Llm
  maxVisits: number
  allowPrivateTools: boolean
  log: Logger
}

interface Leg {
  ports: BoundPorts
  media?: CallMedia
}

export class LocalConversation implements Conversation {
  private media?: CallMedia
  private session?: VoiceSession
  private brain?: Brain
  private engines?: CallEngines
  private tick?: { unsubscribe(): void }
  /** While bridged to a transfer leg (or heard by an answer gate), the caller's audio goes there. */
  private audioSink?: (frame: Int16Array) => void
  private leg?: Leg
  private ended = false
  /** A supervisor's mute (the agent's audio is dropped) and hold (the agent paused, the caller unheard). */
  private muted = false
  private held = false
  /** The media as last negotiated (re-INVITEs change it), for the record's media facts. */
  private negotiated: NegotiatedMedia
  /** This thread's VAD host, held (started now if idle) for the whole call. */
  private readonly releaseVad: () => void

  private constructor(
    private readonly d: ConversationDeps,
    private readonly ports: BoundPorts | MediaLinkFactory,
    private readonly init: ConversationInit,
    private readonly events: ConversationEvents,
  ) {
    this.releaseVad = d.voice.hold('vad')
    this.negotiated = init.media
  }

  /** Starts the media on `ports`, runs the gate if any, then the session (after the agent's welcome delay). */
  static async start(d: ConversationDeps, ports: BoundPorts | MediaLinkFactory, init: ConversationInit, events: ConversationEvents, gate?: AnswerGate): Promise<LocalConversation> {
    const c = new LocalConversation(d, ports, init, events)
    c.media = await d.media.startCall(init.callId, ports, init.media, {
      trustedAddresses: init.trustedAddresses,
      onAudio: (frame, delayMs) => (c.audioSink ? c.audioSink(frame) : c.held ? undefined : c.session?.pushAudio({ samples: frame, sampleRate: ENGINE_RATE }, delayMs)),
      onDtmf: (e) => c.session?.pushDtmf(e.digit),
      onMediaTimeout: () => c.mediaTimedOut(),
    })
    try {
      if (gate && (await c.passGate(gate)) === 'hangup') return c
      await c.converse()
    } catch (err) {
      // nobody holds this conversation to end it: its media must not stay on the clock
      await c.media.close().catch(() => {})
      throw err
    }
    return c
  }

  private async passGate(gate: AnswerGate): Promise<'converse' | 'hangup'> {
    const media = this.media!
    const self = this
    const verdict = await gate({
      listen: (sink) => (this.audioSink = sink),
      play: async (pcm) => void (await media.play(pcm).done),
      get ended() {
        return self.ended
      },
    }).catch((err) => {
      this.d.log.warn({ err, callId: this.init.callId }, 'answer gate failed; the agent takes the call')
      return 'converse' as const
    })
    this.audioSink = undefined
    if (this.ended) return 'hangup'
    if (verdict === 'hangup') this.events.gateHangup()
    return verdict
  }

  private async converse(): Promise<void> {
    const { agent, variables } = this.init
    const engines = (this.engines = this.d.voice.forAgent(agent, ENGINE_RATE))
    const profile = agentProfile(agent, this.d.lines, variables, [])
    const controls = {
      transfer: (target: string) => this.events.transfer(target),
      sendDtmf: (digits: string) => this.media?.sendDtmf(digits),
      optOut: () => this.events.optOut(),
      searchKnowledge: (query: string, opts: KnowledgeQueryOptions) => this.events.searchKnowledge(query, opts),
    }
    const brainDeps = { voice: this.d.voice, workflowLlm: this.d.workflowLlm, maxVisits: this.d.maxVisits, allowPrivateTools: this.d.allowPrivateTools }
    const brain = (this.brain = await brainOfCall(brainDeps, { agent, profile, variables, engines, controls, graph: this.init.graph }))
    this.events.answered({ brain: brain.kind, llm: engines.llm?.model, tts: engines.tts.provider, stt: engines.stt?.provider, fallbacks: engines.fallbacks })
    const t0 = performance.now()
    this.session = sessionFromEngines(this.d.voice, {
      agent: profile,
      brain,
      engines,
      sampleRate: ENGINE_RATE,
      lineRateHz: Math.min(this.init.media.codec.clockRate, ENGINE_RATE),
      now: () => performance.now() - t0,
      hooks: {
        send: (frame) => (this.muted ? undefined : this.media?.play(frame.samples)),
        flush: () => {
          const unsent = this.media?.queuedMs ?? 0
          this.media?.flush()
          return unsent
        },
        hangup: (reason) => {
          this.stopTick()
          this.events.hangup(reason)
        },
        providerFailed: (provider, error) => this.events.providerFailed(provider, error),
        turn: (text, latency, turn) => this.events.turn(text, latency, turn),
        turnMeasured: (turn, latency) => this.events.turnMeasured(turn, latency),
        transcribed: (item) => this.events.transcribed(item),
      },
    })
    if (this.ended) return
    const start = () => {
      if (this.ended || !this.session) return
      this.session.start()
      if (!this.held) this.startTick()
    }
    if (agent.welcome.delayMs > 0) setTimeout(start, agent.welcome.delayMs)
    else start()
  }

  /** The far end sent nothing for RTP_TIMEOUT_MS while not on hold: the call ends (BYE), media_timeout. */
  private mediaTimedOut(): void {
    if (this.ended) return
    this.d.log.info({ callId: this.init.callId, event: 'media_timeout' }, 'no media from the far end; hanging up')
    this.stopTick()
    this.events.hangup('media_timeout')
  }

  private startTick(): void {
    this.tick ??= this.d.media.clock.subscribe(() => this.session?.tick())
  }

  private stopTick(): void {
    this.tick?.unsubscribe()
    this.tick = undefined
  }

  update(media: NegotiatedMedia): void {
    if (!this.media || this.ended) return
    this.media.update(media)
    this.negotiated = media
  }

  pushDtmf(digit: string): void {
    this.session?.pushDtmf(digit)
  }

  callerHungUp(): void {
    if (this.session && !this.session.ended) this.session.callerHungUp()
  }

  async openLeg(): Promise<number> {
    if (this.leg) throw new Error('a transfer leg is already open')
    const ports = await this.d.media.allocatePorts()
    this.leg = { ports }
    return ports.port
  }

  async connectLeg(media: NegotiatedMedia): Promise<void> {
    const leg = this.leg
    const a = this.media
    if (!leg || !a) throw new Error('no transfer leg is open')
    const b = await this.d.media.startCall(`${this.init.callId}-transfer`, leg.ports, media, { onAudio: (f) => a.play(f) })
    leg.media = b
    this.audioSink = (f) => b.play(f)
    a.flush()
  }

  async closeLeg(): Promise<void> {
    const leg = this.leg
    if (!leg) return
    this.leg = undefined
    this.audioSink = undefined
    if (leg.media) await leg.media.close().catch(() => {})
    else leg.ports.release()
  }

  async act(action: MediaAction): Promise<ActionResult> {
    const s = this.session
    if (this.ended || !s || s.ended) return { ok: false, refused: 'the conversation is not running' }
    switch (action.type) {
      case 'say':
        if (this.muted || this.held) return { ok: false, refused: `the agent is ${this.held ? 'on hold' : 'muted'}: resume or unmute it first` }
        return (await s.announce(action.text)) ? { ok: true } : { ok: false, refused: 'the line could not be spoken (the call is ending, or speech synthesis failed)' }
      case 'note':
        if (!this.brain?.note) return { ok: false, refused: `a ${this.brain?.kind ?? 'missing'} brain takes no guidance; only LLM agents do` }
        this.brain.note(action.text)
        return { ok: true }
      case 'mute_agent':
      case 'unmute_agent':
        this.muted = action.type === 'mute_agent'
        if (this.muted) this.media?.flush()
        return { ok: true }
      case 'hold':
      case 'resume':
        if (this.held === (action.type === 'hold')) return { ok: false, refused: `the call is ${this.held ? 'already' : 'not'} on hold` }
        this.held = action.type === 'hold'
        if (this.held) this.stopTick()
        s.hold(this.held)
        if (!this.held) this.startTick()
        return { ok: true }
    }
  }

  async close(): Promise<ConversationResult> {
    this.ended = true
    this.releaseVad()
    this.stopTick()
    this.callerHungUp()
    await this.closeLeg()
    const closed = await this.media?.close()
    if (!this.media && typeof this.ports !== 'function') this.ports.release()
    const rtp = closed?.stats.rtp
    const result: ConversationResult = {
      recording: closed?.recording,
      ...(closed && { media: mediaFacts(this.negotiated, closed.stats) }),
      rtp: rtp && {
        packetsReceived: rtp.packetsReceived, packetsSent: rtp.packetsSent, packetsLost: rtp.packetsLost, jitterMs: rtp.jitterMs,
        ...(rtp.srtp && { srtp: { authFailures: rtp.srtp.authFailures, replays: rtp.srtp.replays, malformed: rtp.srtp.malformed } }),
      },
    }
    if (this.session && this.engines) {
      const report = this.session.report()
      result.session = {
        report,
        brain: this.brain?.kind ?? '',
        llmModel: this.engines.llm?.model ?? '',
        ttsProvider: this.engines.tts.provider,
        sttProvider: this.engines.stt?.provider ?? '',
      }
    }
    return result
  }
}

/** Every call in this thread, on the engine's ports (or the leg's own link) and clock. */
export function localPlacer(d: ConversationDeps): CallPlacer {
  return {
    async place(opts = {}) {
      const link = opts.link
      if (link) return { port: 0, where: 'main', start: (init, events, gate) => LocalConversation.start(d, link, init, events, gate), release: () => {} }
      if (opts.web) return webPlacement(d)
      const ports = await d.media.allocatePorts()
      return {
        port: ports.port,
        where: 'main',
        start: (init, events, gate) => LocalConversation.start(d, ports, init, events, gate),
        release: () => ports.release(),
      }
    },
    async stop() {},
  }
}

/** A web call in this thread: the browser's peer is answered here and carries the call's audio. */
function webPlacement(d: ConversationDeps): CallPlacement {
  let peer: WebPeer | undefined
  return {
    port: 0,
    where: 'main',
    async answerWeb(offer, options) {
      peer = await answerWebOffer(offer, options)
      return webLegOf(peer)
    },
    start: (init, events, gate) => {
      if (!peer) throw new Error('a web call starts after its offer is answered')
      return LocalConversation.start(d, peer.link, init, events, gate)
    },
    release: () => peer?.close('failed'),
  }
}

/** A peer of this thread as a WebLeg. */
export const webLegOf = (peer: WebPeer): WebLeg => ({
  sdp: peer.answerSdp,
  media: peer.media,
  onConnected: (fn) => peer.onConnected(fn),
  onEnded: (fn) => peer.onEnded(fn),
  addCandidate: (c) => peer.addCandidate(c),
  close: (reason) => peer.close(reason),
})
