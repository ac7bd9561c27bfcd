// One answered-or-ringing call: its SIP dialog and the call row that records how it went, on
// the main thread; its audio and conversation run where its placement put them (this thread or
// a call worker). The runtime creates it; it ends itself.
import type { Metrics, TurnLatencies } from '../../../platform/metrics/index.ts'
import type { AgentSnapshot } from '../../agents/index.ts'
import type { Db } from '../../../platform/db/index.ts'
import { nowIso } from '../../../platform/ids.ts'
import type { Logger } from '../../../platform/log.ts'
import type { NumberRoute } from '../../numbers/index.ts'
import { rekeyReoffer, type NegotiatedMedia } from '../../../realtime/telephony/sdp/index.ts'
import type { SrtpSuite } from '../../../realtime/srtp/index.ts'
import type { EndInfo } from '../../../realtime/telephony/sip/index.ts'
import { providerOfEngine } from '../../../realtime/voice/registry/index.ts'
import type { PriceTable } from '../../../realtime/voice/turn/index.ts'
import { type EndReason, MAX_TRANSCRIPT, type TranscriptItem } from '../../../realtime/voice/session/index.ts'
import type { TurnLatency } from '../../../realtime/voice/turn/metrics.ts'
import type { WorkflowGraph } from '../../workflows/index.ts'
import * as ledger from '../records/ledger.ts'
import type { CallLog } from './call-log.ts'
import { CallWorkerFailed, webCallFacts, type CallPlacement, type Conversation, type ConversationEvents, type ConversationResult } from '../conversation/index.ts'
import { answeredOutcome, callCostOf, callMetrics, transcriptOf, turnMetrics, unansweredOutcome } from './record.ts'
import type { ActionResult, KnowledgePassage, KnowledgeQueryOptions, MediaAction, TransferOutcome } from '../conversation/index.ts'
import type { TransferableCall, Transferrer } from './transfer.ts'
import { AppLeg, legEvents, remoteOf, type CallLeg } from './app-leg.ts'
import type { AnswerGate } from '../calls.service.ts'

/** A supervisor's action on a live call (features/calls/actions). */
export type CallAction = MediaAction | { type: 'hangup' } | { type: 'transfer'; target: string }

/** end_reason of a call whose call worker died under it (outcome failed). */
export const WORKER_FAILED = 'call-worker-failed'

export interface LiveCallDeps {
  db: Db
  log: Logger
  prices: PriceTable
  /** The SDES suites a re-offer may switch an SRTP call to (SRTP_SUITES). */
  srtpSuites: readonly SrtpSuite[]
  /** The agent's workflow, if it has one (the brain runs it). */
  graphOf(agent: AgentSnapshot): Promise<WorkflowGraph | undefined>
  transferrer: Transferrer
  /** Writes the call's log lines (start, answer, transfer, end; turns with LOG_CALL_DETAIL). */
  callLog: CallLog
  onFinished(call: LiveCall): void
  /** The other party asked not to be called again (opt_out tool or workflow tool node). */
  optOut(call: LiveCall): Promise<void>
  /** The agent's knowledge bases searched for the call's conversation. */
  searchKnowledge(call: LiveCall, query: string, opts: KnowledgeQueryOptions): Promise<KnowledgePassage[]>
  /** Prometheus instruments: ended calls (outcome, turn latencies, RTP) and provider failures. */
  metrics?: Pick<Metrics, 'callEnded' | 'providerError' | 'callAgentSilent'>
  /** The call's recording is complete at `path` and its end is written (object storage uploads it from there). */
  recorded?(callId: string, path: string): void
}

/** inbound and outbound calls are SIP; web (a browser) and stream (the media-stream WebSocket) are app legs. */
export type LiveCallType = 'inbound' | 'outbound' | 'web' | 'stream' | 'test'

export interface LiveCallInit {
  id: string
  type: LiveCallType
  leg: CallLeg
  placement: CallPlacement
  /** The number a SIP call came in on or goes out from; app legs have none. */
  route?: NumberRoute
  agent: AgentSnapshot
  variables: Record<string, string>
  answerGate?: AnswerGate
  onEnded?: () => void
  /** A test call's unsaved workflow, run instead of the agent's saved one. */
  graph?: WorkflowGraph
  /** An app leg's media as its answer settled it, known before it connects (a web call that never does still records it). */
  media?: NegotiatedMedia
}

export class LiveCall {
  readonly id: string
  readonly type: LiveCallType
  readonly leg: CallLeg
  readonly route?: NumberRoute
  readonly agent: AgentSnapshot
  readonly variables: Record<string, string>
  readonly placement: CallPlacement
  private conv?: Conversation
  private starting?: Promise<unknown>
  private answeredAt?: number
  private sipEnd?: EndInfo
  private sessionEnd?: EndReason
  private workerFailure?: string
  /** The transcript as it grew: what the record keeps when the call's worker died with the session. */
  private readonly heard: TranscriptItem[] = []
  private transferred = false
  /** A supervisor hung up (endReason supervisor_hangup). */
  private supervisorHangup = false
  /** Each caller turn with its latencies as they fill in, rounded as the record rounds them. */
  private readonly turnsHeard: { turn: number; text: string; voiceToVoiceMs: number | null; responseMs: number | null }[] = []
  /** We hung up on an answer whose media we cannot take (a plain answer to a call that requires SRTP). */
  private mediaRefused = false
  private negotiated?: NegotiatedMedia
  private finishing?: Promise<void>
  private readonly answerGate?: AnswerGate
  private readonly onEnded?: () => void
  private readonly graphOverride?: WorkflowGraph
  private readonly offered?: NegotiatedMedia
  readonly finished: Promise<void>
  private resolveFinished!: () => void

  constructor(
    private readonly deps: LiveCallDeps,
    init: LiveCallInit,
  ) {
    this.id = init.id
    this.type = init.type
    this.leg = init.leg
    this.placement = init.placement
    this.route = init.route
    this.agent = init.agent
    this.variables = init.variables
    this.answerGate = init.answerGate
    this.onEnded = init.onEnded
    this.graphOverride = init.graph
    this.offered = init.media
    this.finished = new Promise((r) => (this.resolveFinished = r))
    const events = legEvents(this.leg)
    events.on('ended', (info) => this.onSipEnded(info))
    events.on('dtmf', (digit) => this.conv?.pushDtmf(digit))
    // on hold the peer only sends (or nothing): we stop sending until it takes us off hold
    events.on('hold', () => this.direction('recvonly'))
    events.on('unhold', () => this.direction('sendrecv'))
  }

  get conversation(): Conversation | undefined {
    return this.conv
  }

  /** The call was answered with this media: start the audio and the conversation where it was placed. */
  async answered(media: NegotiatedMedia): Promise<void> {
    this.answeredAt = performance.now()
    this.negotiated = media
    if (!(this.leg instanceof AppLeg)) this.leg.reanswer = (offer, answer) => this.reanswer(offer, answer)
    await ledger.markAnswered(this.deps.db, this.id)
    if (this.sipEnd) return this.finish()
    const graph = this.graphOverride ?? (await this.deps.graphOf(this.agent))
    if (this.sipEnd) return this.finish()
    const init = { callId: this.id, media, trustedAddresses: [remoteOf(this.leg).address], agent: this.agent, variables: this.variables, graph }
    const starting = this.placement.start(init, this.events(), this.answerGate)
    this.starting = starting.catch(() => {})
    try {
      this.conv = await starting
    } catch (err) {
      if (!(err instanceof CallWorkerFailed)) throw err
      return this.onWorkerFailed(err.message)
    }
    if (this.sipEnd) this.conv.callerHungUp()
    // re-keyed by a re-offer while the conversation was starting
    else if (this.negotiated !== media) this.conv.update(this.negotiated)
  }

  /** Our answer to the peer's re-offer; new SDES keys reach the media before the 200 OK leaves. */
  private reanswer(offer: string, answer: string): string {
    const current = this.negotiated
    const { sdp, srtp } = rekeyReoffer(offer, answer, current?.srtp, this.deps.srtpSuites)
    if (current && srtp !== current.srtp) {
      this.negotiated = { ...current, srtp }
      this.conv?.update(this.negotiated)
    }
    return sdp
  }

  transcriptSoFar(): TranscriptItem[] {
    return [...this.heard]
  }

  /** The call as a live panel shows it: where it is, what was said, each turn's latency. */
  liveView() {
    const status = this.finishing ? ('ended' as const) : this.answeredAt === undefined ? ('ringing' as const) : ('in_progress' as const)
    return { status, transcript: this.transcriptSoFar(), turns: this.turnsHeard.map(({ text, voiceToVoiceMs, responseMs }) => ({ text, voiceToVoiceMs, responseMs })) }
  }

  private events(): ConversationEvents {
    return {
      answered: (info) => this.deps.callLog.answered(this, info),
      hangup: (reason) => this.onSessionEnded(reason),
      gateHangup: () => this.hangup(),
      providerFailed: (provider, error) => {
        this.deps.metrics?.providerError(provider)
        this.deps.callLog.providerFailed(this, provider, error)
      },
      turn: (text, latency, turn) => {
        if (this.turnsHeard.push({ turn, text, ...liveLatency(latency) }) > MAX_TRANSCRIPT) this.turnsHeard.shift()
        this.deps.callLog.turn(this, text, latency)
      },
      turnMeasured: (turn, latency) => {
        const heard = this.turnsHeard.findLast((t) => t.turn === turn)
        if (heard) Object.assign(heard, liveLatency(latency))
      },
      transcribed: (item) => {
        if (this.heard.push(item) > MAX_TRANSCRIPT) this.heard.shift()
      },
      transfer: (target) => this.transfer(target),
      optOut: () => this.deps.optOut(this),
      searchKnowledge: (query, opts) => this.deps.searchKnowledge(this, query, opts),
      failed: (reason) => this.onWorkerFailed(reason),
    }
  }

  /** A hold while the conversation is still starting is kept, and reaches it once it runs (answered). */
  private direction(direction: NegotiatedMedia['direction']): void {
    if (!this.negotiated || this.sipEnd) return
    this.negotiated = { ...this.negotiated, direction }
    this.conv?.update(this.negotiated)
  }

  /** A supervisor's action: the dialog's own (hangup, transfer) here, the rest where the conversation runs. */
  async act(action: CallAction): Promise<ActionResult> {
    if (this.finishing || this.sipEnd) return { ok: false, refused: 'the call has ended' }
    if (action.type === 'hangup') {
      this.supervisorHangup = true
      this.hangup()
      return { ok: true }
    }
    if (action.type === 'transfer') {
      const r = await this.transfer(action.target)
      return r.ok ? { ok: true } : { ok: false, refused: `the transfer failed: ${r.reason}` }
    }
    if (!this.conv) return { ok: false, refused: 'the call has not been answered yet' }
    return this.conv.act(action)
  }

  /** Hang up from our side. */
  hangup(): void {
    this.leg.hangup()
  }

  /** The callee answered with media we cannot take: hang up, recorded as failed (media_not_acceptable). */
  refuseAnswer(): void {
    this.mediaRefused = true
    this.leg.hangup()
  }

  /** The appliance is stopping and the call did not end in time. */
  shutdown(): void {
    this.sipEnd ??= { reason: 'shutdown' }
    this.leg.hangup()
  }

  /** The call as a transfer sees it; an app leg has no dialog or trunk to transfer through. */
  private transferable?: TransferableCall

  private async transfer(target: string): Promise<TransferOutcome> {
    const leg = this.leg
    if (leg instanceof AppLeg || !this.route) return { ok: false, reason: 'refused' }
    const self = this
    this.transferable ??= { id: this.id, sip: leg, route: this.route, get conversation() { return self.conv }, hangup: () => this.hangup() }
    const result = await this.deps.transferrer.transfer(this.transferable, target)
    this.deps.callLog.transferred(this, target, result)
    if (result.ok) this.transferred = true
    // bridged: the session is done (without hanging up); the caller now talks to the target through us
    if (result.ok && result.via === 'bridge') this.conv?.callerHungUp()
    return result
  }

  private onSessionEnded(reason: EndReason): void {
    this.sessionEnd ??= reason
    if (this.transferred) return
    this.leg.hangup()
    void this.finish()
  }

  private onSipEnded(info: EndInfo): void {
    if (this.sipEnd?.reason !== 'shutdown') this.sipEnd = info
    this.conv?.callerHungUp()
    void this.finish()
  }

  /** Its call worker died: the media and session are gone; BYE to the peer and close the row. */
  private onWorkerFailed(reason: string): void {
    this.workerFailure ??= reason
    this.deps.log.error({ callId: this.id, reason }, 'the call worker carrying this call failed; hanging up')
    this.leg.hangup()
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

  private async closeConversation(): Promise<ConversationResult | undefined> {
    await this.starting
    if (this.transferable) await this.deps.transferrer.release(this.transferable)
    // without a conversation the ports were never handed over, so they are freed here
    if (!this.conv) {
      this.placement.release()
      return undefined
    }
    return this.workerFailure ? undefined : this.conv.close().catch((err) => {
      this.deps.log.warn({ err, callId: this.id }, 'the call media did not close cleanly')
      return undefined
    })
  }

  private async persist(): Promise<void> {
    const closed = await this.closeConversation()
    let turns: TurnLatencies[] = []
    const endedAt = performance.now()
    const answered = this.answeredAt !== undefined
    const answeredMs = answered ? endedAt - this.answeredAt! : 0
    const leg = this.leg
    const media = leg instanceof AppLeg && leg.kind === 'web' ? webCallFacts(closed?.media, leg.failure, this.sessionEnd === 'media_timeout', this.offered) : closed?.media
    const failure = media?.web?.failure
    const { outcome, endReason } = failure
      ? { outcome: 'failed' as const, endReason: failure }
      : this.workerFailure
      ? { outcome: 'failed' as const, endReason: WORKER_FAILED }
      : answered
        ? this.supervisorHangup && !this.transferred ? { outcome: 'completed' as const, endReason: 'supervisor_hangup' } : answeredOutcome(this.sessionEnd, this.sipEnd, this.transferred)
        : this.mediaRefused
          ? { outcome: 'failed' as const, endReason: 'media_not_acceptable' }
          : unansweredOutcome(this.sipEnd ?? { reason: 'failed' })
    const patch: ledger.CallEnd = {
      status: 'ended',
      outcome,
      end_reason: endReason,
      ended_at: nowIso(),
      duration_sec: Math.round(answeredMs / 1000),
      recording_path: closed?.recording?.path ?? null,
      media: media ? JSON.stringify(media) : null,
    }
    const s = closed?.session
    if (!s && this.heard.length) patch.transcript = JSON.stringify(this.heard)
    if (s) {
      patch.transcript = JSON.stringify(transcriptOf(s.report))
      patch.tool_calls = JSON.stringify(s.report.toolCalls ?? [])
      const metrics = callMetrics(s.report, {
        model: s.report.usage.llm[0]?.model ?? (s.brain === 'llm' ? s.llmModel : ''),
        ttsProvider: providerOfEngine('tts', s.ttsProvider)?.id ?? s.ttsProvider,
        sttProvider: providerOfEngine('stt', s.sttProvider)?.id ?? s.sttProvider,
      })
      turns = metrics.turns
      patch.metrics = JSON.stringify(metrics)
      patch.cost = JSON.stringify(callCostOf(s.report, this.deps.prices, this.type, answeredMs))
    }
    // the call-records hook: the end, its analysis and its post-call webhook in one transaction
    await ledger.finaliseCall(this.deps.db, this.id, patch)
    if (patch.recording_path) this.deps.recorded?.(this.id, patch.recording_path)
    this.deps.callLog.ended(this, { outcome, endReason, durationMs: answeredMs, media })
    // answered and conversed, not handed to a person: the caller must have heard the agent
    if (s && !this.transferred) {
      this.deps.callLog.heard(this, { agentAudioMs: s.report.agentAudioMs, welcome: s.report.welcome, endReason })
      if (s.report.agentAudioMs === 0) this.deps.metrics?.callAgentSilent(this.type)
    }
    const rtp = closed?.rtp
    this.deps.metrics?.callEnded({
      direction: this.type,
      outcome,
      turns,
      rtp: rtp && { received: rtp.packetsReceived, sent: rtp.packetsSent, lost: rtp.packetsLost, jitterMs: rtp.jitterMs, srtp: rtp.srtp },
    })
  }
}

/** A turn's figures on the live panel: the record's own rounding, so the two never disagree. */
function liveLatency(latency: TurnLatency): { voiceToVoiceMs: number | null; responseMs: number | null } {
  const m = turnMetrics(latency)
  return { voiceToVoiceMs: m.voiceToVoiceMs, responseMs: m.responseMs }
}
