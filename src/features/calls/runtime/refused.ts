import { DEFAULT_POLICY, type CallRefusalReason, type Refusal } from '../../../realtime/telephony/refusal/index.ts'

/**
 * The appliance will not take or place a call now, for a reason of the refusal policy
 * (realtime/telephony/refusal), which decides its SIP and HTTP status and `retryAfterSec`. The
 * attempt did not happen. A domain error: an inbound INVITE is refused with the policy's status,
 * the HTTP layer answers with its status, code not_ready and Retry-After; the campaign
 * dispatcher gives the contact back without counting an attempt.
 */
export class CallRefused extends Error {
  readonly reason: CallRefusalReason
  readonly status: number
  readonly retryAfterSec?: number

  constructor(refusal: Refusal | CallRefusalReason, message?: string) {
    const r = typeof refusal === 'string' ? DEFAULT_POLICY.of(refusal) : refusal
    super(message ?? r.message)
    this.name = 'CallRefused'
    this.reason = r.reason
    this.status = r.http
    this.retryAfterSec = r.retryAfterSec
  }
}
