// The telephony side of the appliance: inbound calls on our numbers become conversations, and
// the API's outbound calls are dialled. Owns the live calls and their graceful end.
import { snapshotAgent, type AgentSnapshot } from '../../agents/index.ts'
import type { AppLeg } from './app-leg.ts'
import type { WorkflowGraph } from '../../workflows/index.ts'
import type { Config } from '../../../platform/config/index.ts'
import type { Db } from '../../../platform/db/index.ts'
import { AppError } from '../../../platform/errors.ts'
import { CallRefused } from './refused.ts'
import { Admission, type CallKind, type Ticket } from '../admission/index.ts'
import { DEFAULT_POLICY, type CallRefusalReason, type RefusalPolicy } from '../../../realtime/telephony/refusal/index.ts'
import { newId, nowIso } from '../../../platform/ids.ts'
import type { Logger } from '../../../platform/log.ts'
import { PortPoolExhaustedError, type MediaLinkFactory } from '../../../realtime/media/index.ts'
import { normalizeE164, type NumberRoute } from '../../numbers/index.ts'
import { acceptAnswer, answerOffer, createMediaOffer, DEFAULT_SRTP_SUITES, SdpError, type LocalMediaOptions, type NegotiatedMedia } from '../../../realtime/telephony/sdp/index.ts'
import { parseSipUri, TargetRefusedError, targetTransport, type InboundCall, type UserAgent } from '../../../realtime/telephony/sip/index.ts'
import type { PriceTable } from '../../../realtime/voice/turn/index.ts'
import { optOut } from '../../do-not-call/index.ts'
import { searchKnowledge } from '../../knowledge/index.ts'
import { findWorkflowGraph } from '../../workflows/index.ts'
import type { Dialer, OutboundRequest } from '../calls.service.ts'
import * as ledger from '../records/ledger.ts'
import { CallLog } from './call-log.ts'
import type { CallPlacement, CallPlacer } from '../conversation/index.ts'
import { LiveCall, type LiveCallDeps } from './live-call.ts'
import type { TranscriptItem } from '../../../realtime/voice/session/index.ts'
import { callVariables } from '../conversation/index.ts'
import { callEncryption } from './encryption.ts'
import { dialTarget } from './target.ts'
import { Transferrer } from './transfer.ts'
import { announcesBusy, BUSY_GRAPH, UNCOUNTED } from './busy.ts'
import { isTestLine } from '../test-lines.ts'

export interface CallRuntimeDeps {
  db: Db
  log: Logger
  config: Pick<Config, 'PUBLIC_HOST' | 'LOG_CALL_DETAIL' | 'NODE_ID'>
  ua: UserAgent
  /** Where calls run: this thread or the call workers (src/features/calls/workers). */
  placer: CallPlacer
  /** Our SDP options (codecs, ptime) for a call whose RTP port is `port`. */
  sdpOptions(address: string, port: number): LocalMediaOptions
  prices: PriceTable
  metrics?: LiveCallDeps['metrics']
  recorded?: LiveCallDeps['recorded']
  /** Keeps the offline speech engines loaded while a call lives (see ENGINE_IDLE_RELEASE_MS). */
  holdEngines?: () => () => void
  /** Decides which calls start (workspace limits, headroom); default: workspace limits only. */
  admission?: Admission
  /** How refusals are told (default: the policy's own). */
  policy?: RefusalPolicy
}

/** The caller's number when the From user is one, else the user (or host) as sent. */
function callerOf(uri: string): string {
  const parsed = parseSipUri(uri)
  const user = parsed?.user ?? parsed?.host ?? uri
  return normalizeE164(user) ?? user
}

export interface AppCallRequest {
  leg: AppLeg
  /** The agent as the call runs it (the draft prompt for a draft test). */
  agent: AgentSnapshot
  /** The member's user id or the API key's id: the call's `from`. */
  from: string
  media: NegotiatedMedia
  /** Where the leg's audio travels: its own link on this thread (a media stream), or a placement made for it (a web call). */
  link?: MediaLinkFactory
  placement?: CallPlacement
  /** Resolves when the far end can hear us; rejects when it never connects. */
  connected: Promise<void>
  draft: boolean
  /** An unsaved workflow to run instead of the saved one. */
  graph?: WorkflowGraph
  variables?: Record<string, string>
  /** The place admitted before the offer was answered (web calls, media streams); absent: admitted here. */
  ticket?: Ticket
}

export class CallRuntime implements Dialer {
  /** Each live call with the release of its hold on the offline engines. */
  private readonly live = new Map<LiveCall, () => void>()
  private readonly liveDeps: LiveCallDeps
  private readonly callLog: CallLog
  private stopping = false
  readonly admission: Admission
  private readonly policy: RefusalPolicy

  constructor(private readonly d: CallRuntimeDeps) {
    this.policy = d.policy ?? DEFAULT_POLICY
    this.admission = d.admission ?? new Admission({ db: d.db, policy: this.policy })
    const transferrer = new Transferrer(d.ua, (port) => d.sdpOptions(d.config.PUBLIC_HOST, port), d.log)
    const srtpSuites = d.sdpOptions(d.config.PUBLIC_HOST, 0).srtpSuites ?? DEFAULT_SRTP_SUITES
    this.callLog = new CallLog(d.log, d.config.LOG_CALL_DETAIL)
    this.liveDeps = {
      db: d.db,
      log: d.log,
      prices: d.prices,
      srtpSuites,
      graphOf: (agent) => findWorkflowGraph(d.db, agent.workspaceId, agent.agentId),
      transferrer,
      callLog: this.callLog,
      onFinished: (call) => {
        this.live.get(call)?.()
        this.live.delete(call)
      },
      metrics: d.metrics,
      recorded: d.recorded,
      // caller_number is the other party in both directions (profile.ts)
      optOut: async (call) => void (await optOut(d.db, call.agent.workspaceId, call.variables.caller_number ?? '')),
      searchKnowledge: (call, query, opts) => searchKnowledge(d.db, call.agent.workspaceId, call.agent.knowledgeBaseIds ?? [], query, opts.limit, opts.maxChars),
    }
    d.ua.on('call', (call) => {
      this.inbound(call).catch((err) => {
        d.log.error({ err, sipCallId: call.callId }, 'inbound call failed')
        call.reject(500)
      })
    })
  }

  /** A call keeps the offline engines loaded (loading them again after an idle release) until it finishes. */
  private track(live: LiveCall, ticket: Ticket): void {
    const engines = this.d.holdEngines?.()
    this.live.set(live, () => (engines?.(), ticket.release()))
  }

  private refused(reason: CallRefusalReason): CallRefused {
    return new CallRefused(this.policy.of(reason))
  }

  /** A place for one more call of the workspace, or CallRefused (stopping, workspace_limit, no_headroom). */
  admit(workspaceId: string, kind: CallKind): Promise<Ticket> {
    if (this.stopping) return Promise.reject(this.refused('stopping'))
    return this.admission.admit(workspaceId, kind)
  }

  /** Capacity, calls up and headroom of this node now (/ready, /metrics). */
  capacityNow() {
    return this.admission.figures()
  }

  /** Calls of the workspace up on this node, against its maxConcurrentCalls. */
  callsUp(workspaceId: string): number {
    return this.admission.callsUp(workspaceId)
  }

  get activeCalls(): number {
    return this.live.size
  }

  /** The transcript of a call of this node so far, while it is live (monitoring, tests); undefined once it has ended. */
  transcriptSoFar(callId: string): TranscriptItem[] | undefined {
    for (const live of this.live.keys()) if (live.id === callId) return live.transcriptSoFar()
    return undefined
  }

  private async inbound(call: InboundCall): Promise<void> {
    const route = call.info.context as NumberRoute
    if (!route.inboundAgentId) return call.refuse('unavailable')
    if (!call.info.offer) return call.refuse('no_offer')
    const encryption = callEncryption(route, call.info.remote.transport)
    if ('refused' in encryption) {
      this.d.log.warn({ sipCallId: call.callId, number: route.e164, reason: encryption.refused }, 'inbound call refused with 488: media encryption')
      return call.refuse('media_refused')
    }
    // admitted before the agent is read, so a call over capacity is refused without a database round trip
    let ticket: Ticket
    let graph: WorkflowGraph | undefined
    try {
      ticket = await this.admit(route.workspaceId, 'inbound')
    } catch (err) {
      if (!(err instanceof CallRefused)) throw err
      if (!announcesBusy(route, err.reason)) return call.refuse(err.reason)
      ;[ticket, graph] = [UNCOUNTED(route.workspaceId), BUSY_GRAPH]
    }
    const test = isTestLine(route) ? route.testLine : undefined
    const agent = await snapshotAgent(this.d.db, route.inboundAgentId, { workspaceId: route.workspaceId, draft: test?.draft }).catch(() => undefined)
    if (!agent) return (ticket.release(), call.refuse('unavailable'))
    const placement = await this.d.placer.place().catch((err) => {
      this.d.log.warn({ err, sipCallId: call.callId }, 'no place for a call')
      return undefined
    })
    if (!placement) return (ticket.release(), call.refuse('no_place'))
    let answer
    try {
      answer = answerOffer(call.info.offer, { ...this.d.sdpOptions(this.d.config.PUBLIC_HOST, placement.port), encryption: encryption.encryption })
    } catch (err) {
      placement.release()
      ticket.release()
      const status = err instanceof SdpError ? err.status : 488
      this.d.log.warn({ sipCallId: call.callId, number: route.e164, status, reason: (err as Error).message }, `inbound offer refused with ${status}`)
      return call.reject(status)
    }
    if (call.state !== 'ringing') return (placement.release(), ticket.release())
    const from = callerOf(call.info.from.uri)
    const startedAt = new Date()
    const type = test ? 'test' : 'inbound'
    const variables = callVariables({ from, to: route.e164, type, startedAt })
    const row = await ledger.openCall(this.d.db, {
      id: newId('call'),
      workspace_id: route.workspaceId,
      agent_id: agent.agentId,
      agent_name: agent.name,
      phone_number_id: test ? null : route.id,
      type,
      ...(test?.draft ? { test_draft: 'true' } : {}),
      from_number: from,
      to_number: route.e164,
      status: 'ringing',
      sip_call_id: call.callId,
      variables: JSON.stringify(variables),
      created_at: startedAt.toISOString(),
      started_at: startedAt.toISOString(),
      node_id: this.d.config.NODE_ID || null,
    }).catch((err) => {
      placement.release()
      ticket.release()
      throw err
    })
    const live = new LiveCall(this.liveDeps, { id: row.id, type, leg: call, placement, route, agent, variables, graph })
    this.track(live, ticket)
    this.callLog.started(live)
    call.answer(answer.sdp)
    await live.answered(answer.media)
  }

  async dial(req: OutboundRequest): Promise<void> {
    if (this.stopping) throw this.refused('stopping')
    let target: string
    try {
      target = dialTarget(req.route, req.to)
    } catch (err) {
      throw new AppError(422, 'validation_failed', (err as Error).message, { fields: [{ path: 'phoneNumberId', message: (err as Error).message }] })
    }
    const encryption = callEncryption(req.route, targetTransport(target))
    if ('refused' in encryption) throw new AppError(422, 'validation_failed', encryption.refused, { fields: [{ path: 'phoneNumberId', message: encryption.refused }] })
    const ticket = await this.admit(req.agent.workspaceId, 'outbound')
    // an answer gate hears the callee's frames: such calls run in this thread
    const placement = await this.d.placer.place({ inProcess: req.answerGate !== undefined }).catch((err) => {
      ticket.release()
      if (err instanceof PortPoolExhaustedError) throw this.refused('no_place')
      throw err
    })
    const local = { ...this.d.sdpOptions(this.d.config.PUBLIC_HOST, placement.port), encryption: encryption.encryption }
    const offer = createMediaOffer(local)
    const sip = req.route.sip!
    let call
    try {
      call = await this.d.ua.placeCall({
        target,
        from: { user: req.route.e164 },
        sdp: offer.sdp,
        credentials: sip.username && sip.password ? { username: sip.username, password: sip.password } : undefined,
      })
    } catch (err) {
      placement.release()
      ticket.release()
      if (err instanceof TargetRefusedError) throw new AppError(422, 'validation_failed', `the number's trunk: ${err.message}`, { fields: [{ path: 'phoneNumberId', message: `the number's trunk: ${err.message}` }] })
      throw err
    }
    const variables = { ...callVariables({ from: req.route.e164, to: req.to, type: 'outbound', startedAt: new Date() }), ...req.variables }
    // The callee may answer or refuse before this write lands (a PostgreSQL round trip): the
    // listeners below are attached before any await, and the write never overrides a later status.
    const ringing = ledger.markRinging(this.d.db, req.callId, { sip_call_id: call.callId, started_at: nowIso(), variables: JSON.stringify(variables) })
    const live = new LiveCall(this.liveDeps, {
      id: req.callId, type: 'outbound', leg: call, placement, route: req.route, agent: req.agent, variables,
      answerGate: req.answerGate, onEnded: req.onEnded,
    })
    this.track(live, ticket)
    this.callLog.started(live)
    if (req.ringTimeoutMs) {
      const ring = setTimeout(() => call.cancel(), req.ringTimeoutMs)
      call.on('answered', () => clearTimeout(ring))
      call.on('ended', () => clearTimeout(ring))
    }
    call.on('answered', (sdp) => {
      let media
      try {
        media = acceptAnswer(sdp, local, offer)
      } catch (err) {
        this.d.log.warn({ callId: req.callId, reason: (err as Error).message }, 'unusable SDP answer; hanging up')
        live.refuseAnswer()
        return
      }
      live.answered(media).catch((err) => {
        this.d.log.error({ err, callId: req.callId }, 'outbound call failed after answer')
        call.hangup()
      })
    })
    await ringing
  }

  /**
   * A call whose far end is not SIP: a browser's WebRTC peer or a media-stream socket. The row
   * is opened ringing; the call is answered when `connected` resolves (ICE and DTLS done) and
   * fails if it rejects. Its audio travels `link` on this thread.
   */
  async startAppCall(req: AppCallRequest): Promise<{ callId: string; finished: Promise<void> }> {
    if (this.stopping) throw this.refused('stopping')
    const ticket = req.ticket ?? (await this.admit(req.agent.workspaceId, req.leg.kind))
    let placement: CallPlacement
    try {
      placement = req.placement ?? (await this.d.placer.place({ link: req.link }))
    } catch (err) {
      ticket.release()
      throw err
    }
    const startedAt = new Date()
    const variables = { ...callVariables({ from: req.from, to: req.agent.name, type: req.leg.kind, startedAt }), ...req.variables }
    const row = await ledger.openCall(this.d.db, {
      id: newId('call'),
      workspace_id: req.agent.workspaceId,
      agent_id: req.agent.agentId,
      agent_name: req.agent.name,
      phone_number_id: null,
      type: req.leg.kind,
      from_number: req.from,
      to_number: req.agent.agentId,
      status: 'ringing',
      sip_call_id: null,
      variables: JSON.stringify(variables),
      created_at: startedAt.toISOString(),
      started_at: startedAt.toISOString(),
      node_id: this.d.config.NODE_ID || null,
      test_draft: req.draft ? 'true' : 'false',
    }).catch((err) => {
      if (!req.placement) placement.release()
      ticket.release()
      throw err
    })
    const live = new LiveCall(this.liveDeps, { id: row.id, type: req.leg.kind, leg: req.leg, placement, agent: req.agent, variables, graph: req.graph, media: req.media })
    this.track(live, ticket)
    this.callLog.started(live)
    req.connected.then(
      () => live.answered(req.media),
      () => req.leg.farEndLeft('failed'),
    ).catch((err) => {
      this.d.log.error({ err, callId: row.id }, `${req.leg.kind} call failed after answer`)
      req.leg.hangup()
    })
    return { callId: row.id, finished: live.finished }
  }

  /** Where a web call will run; its placement answers the browser's offer there. */
  placeWebCall(): Promise<CallPlacement> {
    if (this.stopping) return Promise.reject(this.refused('stopping'))
    return this.d.placer.place({ web: true })
  }

  /** The live call with this id on this node, undefined when it is not (ended, or on another node). */
  liveCall(callId: string): LiveCall | undefined {
    for (const live of this.live.keys()) if (live.id === callId) return live
    return undefined
  }

  /** The live call with this id on this node as a live panel shows it; undefined once it has ended. */
  liveView(callId: string): ReturnType<LiveCall['liveView']> | undefined {
    for (const live of this.live.keys()) if (live.id === callId) return live.liveView()
    return undefined
  }

  /**
   * Graceful stop: new INVITEs get 503 at once; calls in progress may end by themselves within
   * `drainMs`, then are hung up (outcome shutdown) and recorded.
   */
  async stop(drainMs: number): Promise<void> {
    this.stopping = true
    const cut = setTimeout(() => {
      for (const c of this.live.keys()) c.shutdown()
    }, drainMs)
    await this.d.ua.stop(drainMs + 1000)
    // web calls and media streams are no SIP calls: the user agent's stop does not wait for them
    await Promise.all([...this.live.keys()].map((c) => c.finished))
    clearTimeout(cut)
  }
}
