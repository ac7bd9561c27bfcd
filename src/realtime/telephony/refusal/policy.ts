// The one refusal policy: every call the appliance will not take — over SIP, as a web call, as a
// media stream or from the API — is refused for a reason named here, and this table alone
// decides the SIP status, the HTTP status and how long the caller should wait (Retry-After).

export type CallRefusalReason =
  /** No number of ours was dialled (404). */
  | 'unknown_number'
  /** A number of ours, from a source that is not its trunk (a challenge, then 403). */
  | 'not_trunk'
  /** A digest answer that does not match the number's credentials (403). */
  | 'bad_digest'
  /** A session interval below our Min-SE (422). */
  | 'session_interval'
  /** The number has no inbound agent, the agent is gone, or nothing took the call (480). */
  | 'unavailable'
  /** The INVITE carried no SDP offer (488). */
  | 'no_offer'
  /** The offer asks for media we cannot give: codecs, encryption (488). */
  | 'media_refused'
  /** The appliance is stopping (503). */
  | 'stopping'
  /** The call runtime is not running yet (503). */
  | 'starting'
  /** No RTP port or call worker place is free (503). */
  | 'no_place'
  /** WEB_CALLS_MAX web and stream calls are up on this node (503). */
  | 'web_slots'
  /** The workspace holds its share of WEB_CALLS_MAX already (503). */
  | 'web_share'
  /** The workspace has maxConcurrentCalls calls up (503). */
  | 'workspace_limit'
  /** The appliance has no headroom for one more call within its timing goals (503). */
  | 'no_headroom'

export interface RefusalRule {
  /** The final response to an INVITE. */
  sip: number
  /** The HTTP status of a web call, media stream or API call refused for this reason. */
  http: number
  /** Seconds the caller should wait before trying again (Retry-After); absent: trying again will not help. */
  retryAfterSec?: number
  /** What the caller is told. */
  message: string
}

const RULES: Record<CallRefusalReason, RefusalRule> = {
  unknown_number: { sip: 404, http: 404, message: 'no such number' },
  not_trunk: { sip: 403, http: 403, message: 'the source is not a trunk of the number' },
  bad_digest: { sip: 403, http: 403, message: 'bad digest credentials' },
  session_interval: { sip: 422, http: 422, message: 'the session interval is too small' },
  unavailable: { sip: 480, http: 404, message: 'nobody takes calls on this number' },
  no_offer: { sip: 488, http: 422, message: 'an SDP offer is required' },
  media_refused: { sip: 488, http: 422, message: 'the offered media cannot be used' },
  stopping: { sip: 503, http: 503, retryAfterSec: 30, message: 'the appliance is stopping' },
  starting: { sip: 503, http: 503, retryAfterSec: 5, message: 'calls are not running yet; retry shortly' },
  no_place: { sip: 503, http: 503, retryAfterSec: 5, message: 'no RTP port or call worker is free; too many calls' },
  web_slots: { sip: 503, http: 503, retryAfterSec: 5, message: 'this appliance carries at most WEB_CALLS_MAX web and stream calls at once' },
  web_share: { sip: 503, http: 503, retryAfterSec: 5, message: "the workspace holds its share of this appliance's web and stream calls (WEB_CALLS_SHARE of WEB_CALLS_MAX)" },
  workspace_limit: { sip: 503, http: 503, retryAfterSec: 10, message: "the workspace has its maxConcurrentCalls calls up" },
  no_headroom: { sip: 503, http: 503, retryAfterSec: 5, message: 'the appliance has no headroom for another call; all lines are busy' },
}

export interface Refusal extends RefusalRule {
  reason: CallRefusalReason
}

/** The policy, with the Retry-After of a stop taken from the configuration (SIP_RETRY_AFTER_SEC). */
export class RefusalPolicy {
  constructor(private readonly retryAfterSec: Partial<Record<CallRefusalReason, number>> = {}) {}

  of(reason: CallRefusalReason): Refusal {
    const rule = RULES[reason]
    const wait = this.retryAfterSec[reason] ?? rule.retryAfterSec
    return { reason, ...rule, ...(wait === undefined ? {} : { retryAfterSec: wait }) }
  }
}

/** The policy with its defaults; the appliance's own has the configured stop Retry-After. */
export const DEFAULT_POLICY = new RefusalPolicy()

/** Whether trying again later may succeed: a refusal for load, not for what was asked. */
export const isBusy = (reason: CallRefusalReason): boolean => RULES[reason].sip === 503
