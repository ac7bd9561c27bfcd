/**
 * The appliance cannot take or place a call now (stopping, starting, no free media port): the
 * attempt did not happen, and may be made again after `retryAfterSec`. A domain error: the HTTP
 * layer answers it with 503 not_ready and Retry-After; the campaign dispatcher gives the contact
 * back without counting an attempt.
 */
export class CallRefused extends Error {
  constructor(
    message: string,
    readonly retryAfterSec?: number,
  ) {
    super(message)
    this.name = 'CallRefused'
  }
}
