// Browser test calls: a member's browser offers WebRTC, the appliance answers with its peer and
// the call runs on the ordinary call path as type `web`. The peers of live web calls are kept
// here by call id, for trickled candidates and hang-up from the same workspace.
import { snapshotAgent } from '../agents/index.ts'
import type { Principal } from '../api-keys/principal.ts'
import { AppLeg } from '../calls/index.ts'
import type { Db } from '../../platform/db/index.ts'
import { AppError, notFound } from '../../platform/errors.ts'
import type { Logger } from '../../platform/log.ts'
import { parseNetworks } from '../../platform/net/index.ts'
import { CONNECT_TIMEOUT, parseHostAddresses, parseIceServers, WebRtcOfferError, type TrickleCandidate, type WebRtcOptions } from '../../realtime/webrtc/index.ts'
import type { WebLeg } from '../calls/index.ts'
import type { Config } from '../../platform/config/index.ts'
import { validateWorkflow, type WorkflowGraph } from '../workflows/index.ts'
import type { AppCallHost, AppCallSlots, LiveView } from './app-calls.ts'
import type { StartWebCallBody } from './web-calls.model.ts'

export interface WebCallsDeps {
  db: Db
  log: Logger
  host: () => AppCallHost | undefined
  options: WebRtcOptions
  /** WEB_CALLS_MAX, shared with media streams. */
  slots: AppCallSlots
  /** How long ICE and DTLS may take before the call fails. */
  connectTimeoutMs: number
}

interface Held {
  web: WebLeg
  leg: AppLeg
  workspaceId: string
  agentId: string
}

const notReady = () => new AppError(503, 'not_ready', 'calls are not running yet; retry shortly', { retryAfterSec: 5 })

export class WebCalls {
  private readonly held = new Map<string, Held>()

  constructor(private readonly d: WebCallsDeps) {}

  async start(principal: Principal, agentId: string, body: StartWebCallBody, remote: { address: string; port: number }) {
    const host = this.d.host()
    if (!host) throw notReady()
    const release = this.d.slots.take()
    if (!release) throw new AppError(503, 'not_ready', `this appliance carries at most ${this.d.slots.max} web and stream calls at once (WEB_CALLS_MAX)`, { retryAfterSec: 5 }, { 'retry-after': '5' })
    let web: WebLeg
    let graph: WorkflowGraph | undefined
    let agent
    let placement
    try {
      agent = await snapshotAgent(this.d.db, agentId, { workspaceId: principal.workspaceId, draft: body.draft === true })
      graph = body.workflow ? draftGraph(body.workflow, agent.enabledTools) : undefined
      // answered where the call will run: a call worker's thread, or this one
      placement = await host.placeWebCall()
    } catch (err) {
      release()
      throw err
    }
    try {
      web = await placement.answerWeb!(body.sdp, this.d.options)
    } catch (err) {
      placement.release()
      release()
      if (err instanceof WebRtcOfferError || (err instanceof Error && err.name === 'WebRtcOfferError')) {
        throw new AppError(422, 'validation_failed', err.message, { fields: [{ path: 'sdp', message: err.message }] })
      }
      throw err
    }
    const leg = new AppLeg('web', { transport: 'webrtc', ...remote }, (reason) => web.close(reason))
    web.onEnded((reason) => {
      if (reason === 'ice_failed' || reason === 'dtls_failed') leg.failure = reason
      leg.farEndLeft(leg.failure ? 'failed' : 'remote_hangup')
    })
    const connected = new Promise<void>((resolve, reject) => {
      // the peer ends saying why it did not connect, which ends this wait
      const limit = setTimeout(() => web.close(CONNECT_TIMEOUT), this.d.connectTimeoutMs)
      web.onConnected(() => (clearTimeout(limit), resolve()))
      web.onEnded(() => (clearTimeout(limit), reject(new Error('the browser left before connecting'))))
    })
    connected.catch(() => {})
    let started
    try {
      started = await host.startAppCall({ leg, agent, from: principal.userId, media: web.media, placement, connected, draft: body.draft === true || graph !== undefined, graph })
    } catch (err) {
      placement.release()
      release()
      throw err
    }
    const { callId, finished } = started
    this.held.set(callId, { web, leg, workspaceId: principal.workspaceId, agentId })
    // the place is free once the leg has ended, not only once the record is written
    leg.on('ended', release)
    void finished.finally(() => {
      this.held.delete(callId)
      release()
    })
    return { callId, type: 'web' as const, sdp: web.sdp, iceServers: this.d.options.iceServers }
  }

  private find(principal: Principal, agentId: string, callId: string): Held {
    const h = this.held.get(callId)
    // another workspace's call is as absent as one that never was
    if (!h || h.workspaceId !== principal.workspaceId || h.agentId !== agentId) throw notFound('web call')
    return h
  }

  async addCandidate(principal: Principal, agentId: string, callId: string, candidate: TrickleCandidate | null): Promise<void> {
    const h = this.find(principal, agentId, callId)
    try {
      await h.web.addCandidate(candidate)
    } catch (err) {
      throw new AppError(422, 'validation_failed', `candidate refused: ${(err as Error).message}`, { fields: [{ path: 'candidate', message: 'not a usable ICE candidate' }] })
    }
  }

  hangup(principal: Principal, agentId: string, callId: string): void {
    this.find(principal, agentId, callId).leg.hangup()
  }

  live(principal: Principal, agentId: string, callId: string): LiveView {
    this.find(principal, agentId, callId)
    const view = this.d.host()?.liveView(callId)
    if (!view) throw notFound('web call')
    return view
  }

  /** Hangs up every web call (the appliance is stopping). */
  stop(): void {
    for (const h of this.held.values()) h.leg.hangup()
  }
}

function draftGraph(input: StartWebCallBody['workflow'] & object, enabledTools: readonly string[]): WorkflowGraph {
  const r = validateWorkflow(input, { enabledTools })
  if (r.ok) return r.graph
  const fields = r.issues.map((i) => ({ ...i, path: `workflow.${i.path}` }))
  throw new AppError(422, 'validation_failed', `workflow is not valid: ${r.issues.slice(0, 10).map((i) => i.message).join('; ')}`, { fields })
}

/** The WebRTC options and limits of web calls, from the configuration. */
export function webCallLimits(
  config: Pick<Config, 'WEBRTC_HOST_ADDRESSES' | 'WEBRTC_ICE_SERVERS' | 'WEBRTC_PORT_MIN' | 'WEBRTC_PORT_MAX' | 'WEBRTC_ALLOW_NETWORKS' | 'WEBRTC_MAX_REMOTE_CANDIDATES' | 'WEB_CALLS_MAX' | 'WEB_CALL_CONNECT_MS'>,
) {
  const portRange: [number, number] | undefined = config.WEBRTC_PORT_MIN > 0 && config.WEBRTC_PORT_MAX > config.WEBRTC_PORT_MIN ? [config.WEBRTC_PORT_MIN, config.WEBRTC_PORT_MAX] : undefined
  const options: WebRtcOptions = {
    hostAddresses: parseHostAddresses(config.WEBRTC_HOST_ADDRESSES),
    iceServers: parseIceServers(config.WEBRTC_ICE_SERVERS),
    portRange,
    allowNetworks: parseNetworks(config.WEBRTC_ALLOW_NETWORKS).cidrs.slice(),
    maxRemoteCandidates: config.WEBRTC_MAX_REMOTE_CANDIDATES,
  }
  return { options, connectTimeoutMs: config.WEB_CALL_CONNECT_MS }
}
