// One structured log line per step of a call (start, answer, transfer, end) at info, provider
// failures at warn, and with LOG_CALL_DETAIL a line per caller turn.
import type { Logger } from '../../../platform/log.ts'
import type { NumberRoute } from '../../numbers/index.ts'
import { remoteOf, type CallLeg } from './app-leg.ts'
import type { TurnLatency } from '../../../realtime/voice/turn/metrics.ts'
import type { AnsweredInfo } from '../conversation/index.ts'
import type { MediaFacts, TransferOutcome } from '../conversation/index.ts'

/** What a log line says about the call it is about. */
export interface LoggedCall {
  id: string
  type: 'inbound' | 'outbound' | 'web' | 'stream' | 'test'
  leg: CallLeg
  route?: NumberRoute
  agent: { agentId: string; workspaceId: string; name: string }
  /** The call's variables: caller_number is the other party in both directions (profile.ts). */
  variables: Record<string, string>
}

export class CallLog {
  constructor(
    private readonly log: Logger,
    private readonly detail: boolean,
  ) {}

  private fields(call: LoggedCall) {
    const r = remoteOf(call.leg)
    return {
      callId: call.id,
      workspaceId: call.agent.workspaceId,
      agentId: call.agent.agentId,
      number: call.route?.e164,
      direction: call.type,
      // the other party: the caller inbound, the callee outbound
      remote: call.variables.caller_number,
      peer: `${r.transport}:${r.address}:${r.port}`,
    }
  }

  started(call: LoggedCall): void {
    this.log.info({ ...this.fields(call), event: 'call_start', agent: call.agent.name }, 'call started')
  }

  answered(call: LoggedCall, info: AnsweredInfo): void {
    const line = { ...this.fields(call), event: 'call_answer', brain: info.brain, llm: info.llm, tts: info.tts, stt: info.stt }
    this.log.info(line, 'call answered')
    for (const why of info.fallbacks) this.log.warn({ ...this.fields(call), event: 'call_fallback' }, why)
  }

  transferred(call: LoggedCall, target: string, outcome: TransferOutcome): void {
    const result = outcome.ok ? { ok: true, via: outcome.via } : { ok: false, reason: outcome.reason }
    this.log.info({ ...this.fields(call), event: 'call_transfer', target, ...result }, 'call transfer')
  }

  /** The end, with the call's media facts; a web call that failed says why, at warn. */
  ended(call: LoggedCall, end: { outcome: string; endReason: string | null; durationMs: number; media?: MediaFacts }): void {
    const line = { ...this.fields(call), event: 'call_end', outcome: end.outcome, reason: end.endReason, durationSec: Math.round(end.durationMs) / 1000, ...(end.media && { media: end.media }) }
    const failure = end.media?.web?.failure
    if (failure) this.log.warn({ ...line, failure }, `web call failed: ${failure}`)
    else this.log.info(line, 'call ended')
  }

  /** How the welcome went (barge-in at info), and a warning when the caller heard nothing at all from the agent. */
  heard(call: LoggedCall, h: { agentAudioMs: number; welcome?: string; endReason: string | null }): void {
    if (h.welcome === 'barged_in') this.log.info({ ...this.fields(call), event: 'call_welcome', welcome: h.welcome }, 'the caller spoke over the welcome (barge-in)')
    else if (h.welcome && h.welcome !== 'spoken') this.log.warn({ ...this.fields(call), event: 'call_welcome', welcome: h.welcome, reason: h.endReason }, 'the welcome was not heard to its end')
    if (h.agentAudioMs === 0) this.log.warn({ ...this.fields(call), event: 'call_agent_silent', reason: h.endReason }, 'the agent said nothing the caller could hear in this call')
  }

  providerFailed(call: LoggedCall, provider: string, error: string): void {
    this.log.warn({ ...this.fields(call), event: 'provider_error', provider, error }, 'provider failed')
  }

  turn(call: LoggedCall, text: string, latency: TurnLatency): void {
    if (!this.detail) return
    this.log.info({ ...this.fields(call), event: 'call_turn', text, ...latency }, 'caller turn')
  }
}
