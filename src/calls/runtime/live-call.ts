// One answered-or-ringing call: its SIP dialog, its media, the voice session talking on it, and
// the call row that records how it went. The runtime creates it; it ends itself.
import type { Metrics, TurnLatencies } from '../../metrics/index.ts'
import type { AgentSnapshot } from '../../agents/index.ts'
import type { Db } from '../../db/index.ts'
import { nowIso } from '../../ids.ts'
import type { Logger } from '../../log.ts'
import { ENGINE_RATE, type BoundPorts, type CallMedia, type MediaEngine } from '../../media/index.ts'
import type { NumberRoute } from '../../numbers/index.ts'
import type { NegotiatedMedia } from '../../telephony/sdp/index.ts'
import type { EndInfo, InboundCall, OutboundCall } from '../../telephony/sip/index.ts'
import type { CallEngines, VoiceEngines } from '../../voice/index.ts'
import { sessionFromEngines, type Brain, type EndReason, type VoiceSession } from '../../voice/session/index.ts'
import * as repo from '../calls.repository.ts'
import { finaliseCall } from '../records/finalise.ts'
import type { CallBrainInput } from './brain.ts'
import type { CallLog } from './call-log.ts'
import { agentProfile, type CallLines } from './profile.ts'
import { answeredOutcome, callCostOf, callMetrics, transcriptOf, unansweredOutcome } from './record.ts'
import type { CallControls, TransferOutcome } from './tools.ts'
import type { Transferrer } from './transfer.ts'
import type { AnswerGate } from '../calls.service.ts'

export interface LiveCallDeps {
  db: Db
  log: Logger
  media: MediaEngine
  voice: VoiceEngines
  lines: CallLines
  /** Picks what runs the conversation (see brain.ts). */
  brainOf(input: CallBrainInput): Promise<Brain>
  transferrer: Transferrer
  /** Writes the call's log lines (start, answer, transfer, end; turns with LOG_CALL_DETAIL). */
  callLog: CallLog
  onFinished(call: LiveCall): void
  /** The other party asked not to be called again (opt_out tool or workflow tool node). */
  optOut(call: LiveCall): Promise<void>
  /** Prometheus instruments: ended calls (outcome, turn latencies, RTP) and provider failures. */
  metrics?: Pick<Metrics, 'callEnded' | 'providerError'>
  /** The call's recording is complete at `path` and its end is written (object storage uploads it from there). */
  recorded?(callId: string, path: string): void
}

export interface LiveCallInit {
  id: string
  type: 'inbound' | 'outbound'
  sip: InboundCall | OutboundCall
  ports: BoundPorts
  route: NumberRoute
  agent: AgentSnapshot
  variables: Record<string, string>
  answerGate?: AnswerGate
  onEnded?: () => void
}

export class LiveCall {
  readonly id: string
  readonly type: 'inbound' | 'outbound'
  readonly sip: InboundCall | OutboundCall
  readonly route: NumberRoute
  readonly agent: AgentSnapshot
  readonly variables: Record<string, string>
  private readonly ports: BoundPorts
  private callMedia?: CallMedia
  private session?: VoiceSession
  private tick?: { unsubscribe(): void }
  private answeredAt?: number
  private sipEnd?: EndInfo
  private sessionEnd?: EndReason
  private transferred = false
  private brain?: Brain
  private engines?: CallEngines
  private negotiated?: NegotiatedMedia
  /** While bridged to a transfer target, the caller's audio goes there instead of the session. */
  private audioSink?: (frame: Int16Array) => void
  private finishing?: Promise<void>
  private readonly answerGate?: AnswerGate
  private readonly onEnded?: () => void
  readonly finished: Promise<void>
  private resolveFinished!: () => void

  constructor(
    private readonly deps: LiveCallDeps,
    init: LiveCallInit,
  ) {
    this.id = init.id
    this.type = init.type
    this.sip = init.sip
    this.ports = init.ports
    this.route = init.route
    this.agent = init.agent
    this.variables = init.variables
    this.answerGate = init.answerGate
    this.onEnded = init.onEnded
    this.finished = new Promise((r) => (this.resolveFinished = r))
    this.sip.on('ended', (info) => this.onSipEnded(info))
    this.sip.on('dtmf', (digit) => this.session?.pushDtmf(digit))
    // on hold the peer only sends (or nothing): we stop sending until it takes us off hold
    this.sip.on('hold', () => this.direction('recvonly'))
    this.sip.on('unhold', () => this.direction('sendrecv'))
  }

  get media(): CallMedia | undefined {
    return this.callMedia
  }

  /** The call was answered with this media: start the audio and the conversation. */
  async answered(media: NegotiatedMedia): Promise<void> {
    this.answeredAt = performance.now()
    this.negotiated = media
    await repo.updateCall(this.deps.db, this.id, { status: 'in_progress', answered_at: nowIso() })
    if (this.sipEnd) return this.finish()
    this.callMedia = await this.deps.media.startCall(this.id, this.ports, media, {
      trustedAddresses: [remoteOf(this.sip).address],
      onAudio: (frame) => (this.audioSink ? this.audioSink(frame) : this.session?.pushAudio({ samples: frame, sampleRate: ENGINE_RATE })),
      onDtmf: (e) => this.session?.pushDtmf(e.digit),
    })
    if (this.answerGate && (await this.passAnswerGate(this.answerGate)) === 'hangup') return
    const controls: CallControls = {
      transfer: (target) => this.transfer(target),
      sendDtmf: (digits) => this.callMedia?.sendDtmf(digits),
      optOut: () => this.deps.optOut(this),
    }
    const engines = (this.engines = this.deps.voice.forAgent(this.agent, ENGINE_RATE))
    const profile = agentProfile(this.agent, this.deps.lines, this.variables, [])
    const brain = (this.brain = await this.deps.brainOf({ agent: this.agent, profile, variables: this.variables, engines, controls }))
    this.deps.callLog.answered(this, brain.kind, engines)
    const t0 = performance.now()
    this.session = sessionFromEngines(this.deps.voice, {
      agent: profile,
      brain,
      engines,
      sampleRate: ENGINE_RATE,
      now: () => performance.now() - t0,
      hooks: {
        send: (frame) => this.callMedia?.play(frame.samples),
        hangup: (reason) => this.onSessionEnded(reason),
        providerFailed: (provider, error) => {
          this.deps.metrics?.providerError(provider)
          this.deps.callLog.providerFailed(this, provider, error)
        },
        turn: (text, latency) => this.deps.callLog.turn(this, text, latency),
      },
    })
    if (this.sipEnd) return this.finish()
    const start = () => {
      if (this.sipEnd || !this.session) return
      this.session.start()
      this.tick = this.deps.media.clock.subscribe(() => this.session?.tick())
    }
    if (this.agent.welcome.delayMs > 0) setTimeout(start, this.agent.welcome.delayMs)
    else start()
  }

  private async passAnswerGate(gate: AnswerGate): Promise<'converse' | 'hangup'> {
    const media = this.callMedia!
    const call = this
    const verdict = await gate({
      listen: (sink) => this.bridgeAudio(sink),
      play: async (pcm) => void (await media.play(pcm).done),
      get ended() {
        return call.sipEnd !== undefined
      },
    }).catch((err) => {
      this.deps.log.warn({ err, callId: this.id }, 'answer gate failed; the agent takes the call')
      return 'converse' as const
    })
    this.bridgeAudio(undefined)
    if (this.sipEnd) {
      void this.finish()
      return 'hangup'
    }
    if (verdict === 'hangup') this.hangup()
    return verdict
  }

  private direction(direction: NegotiatedMedia['direction']): void {
    if (!this.callMedia || !this.negotiated || this.sipEnd) return
    this.negotiated = { ...this.negotiated, direction }
    this.callMedia.update(this.negotiated)
  }

  /** Hang up from our side. */
  hangup(): void {
    this.sip.hangup()
  }

  /** The appliance is stopping and the call did not end in time. */
  shutdown(): void {
    this.sipEnd ??= { reason: 'shutdown' }
    this.sip.hangup()
  }

  private async transfer(target: string): Promise<TransferOutcome> {
    const result = await this.deps.transferrer.transfer(this, target)
    this.deps.callLog.transferred(this, target, result)
    if (result.ok) this.transferred = true
    if (result.ok && result.via === 'bridge') {
      // the session is done (without hanging up): the caller now talks to the target through us
      this.session?.callerHungUp()
    }
    return result
  }

  /** The transferrer bridged the caller to another leg: route the caller's audio there. */
  bridgeAudio(sink: ((frame: Int16Array) => void) | undefined): void {
    this.audioSink = sink
  }

  private onSessionEnded(reason: EndReason): void {
    this.sessionEnd ??= reason
    this.tick?.unsubscribe()
    this.tick = undefined
    if (this.transferred) return
    this.sip.hangup()
    void this.finish()
  }

  private onSipEnded(info: EndInfo): void {
    if (this.sipEnd?.reason !== 'shutdown') this.sipEnd = info
    if (this.session && !this.session.ended) this.session.callerHungUp()
    void this.finish()
  }

  private finish(): Promise<void> {
    this.finishing ??= this.persist()
      .catch((err) => this.deps.log.error({ err, callId: this.id }, 'could not record the end of a call'))
      .finally(() => {
        this.deps.onFinished(this)
        this.resolveFinished()
        this.onEnded?.()
      })
    return this.finishing
  }

  private async persist(): Promise<void> {
    this.tick?.unsubscribe()
    await this.deps.transferrer.release(this)
    // without media the ports were never handed to it, so they are freed here
    if (!this.callMedia) this.ports.release()
    const closed = await this.callMedia?.close()
    let turns: TurnLatencies[] = []
    const endedAt = performance.now()
    const answered = this.answeredAt !== undefined
    const answeredMs = answered ? endedAt - this.answeredAt! : 0
    const { outcome, endReason } = answered
      ? answeredOutcome(this.sessionEnd, this.sipEnd, this.transferred)
      : unansweredOutcome(this.sipEnd ?? { reason: 'failed' })
    const patch: Parameters<typeof repo.updateCall>[2] = {
      status: 'ended',
      outcome,
      end_reason: endReason,
      ended_at: nowIso(),
      duration_sec: Math.round(answeredMs / 1000),
      recording_path: closed?.recording?.path ?? null,
    }
    if (this.session && this.engines) {
      const report = this.session.report()
      patch.transcript = JSON.stringify(transcriptOf(report))
      const metrics = callMetrics(report, {
        model: report.usage.llm[0]?.model ?? (this.brain?.kind === 'llm' ? (this.engines.llm?.model ?? '') : ''),
        ttsProvider: catalogId(this.engines.tts.provider),
        sttProvider: catalogId(this.engines.stt?.provider ?? ''),
      })
      turns = metrics.turns
      patch.metrics = JSON.stringify(metrics)
      patch.cost = JSON.stringify(callCostOf(report, this.deps.voice.settings.prices, this.type, answeredMs))
    }
    // the call-records hook: the end, its analysis and its post-call webhook in one transaction
    await finaliseCall(this.deps.db, this.id, patch)
    if (patch.recording_path) this.deps.recorded?.(this.id, patch.recording_path)
    this.deps.callLog.ended(this, { outcome, endReason, durationMs: answeredMs })
    const rtp = closed?.stats.rtp
    this.deps.metrics?.callEnded({
      direction: this.type,
      outcome,
      turns,
      rtp: rtp && { received: rtp.packetsReceived, sent: rtp.packetsSent, lost: rtp.packetsLost, jitterMs: rtp.jitterMs },
    })
  }
}

/** Engines name themselves `flite-tts`, `deepgram-stt`; the API and GET /api/providers say `flite`, `deepgram`. */
const catalogId = (engine: string) => engine.replace(/-(tts|stt)$/, '')

/** Where the peer's signalling comes from: its media may come from there too. */
export const remoteOf = (sip: InboundCall | OutboundCall) => ('info' in sip ? sip.info.remote : sip.remote)
