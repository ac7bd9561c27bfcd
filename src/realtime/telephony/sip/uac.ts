// An outbound call: our INVITE, digest authentication on 401/407, the final response mapped
// to an outcome, CANCEL before the answer, and the shared Call behaviour after it.
import { Call, type EndInfo, type UaContext } from './call.ts'
import { inDialogRequest, newCallId, newTag, uacDialog, toTag } from './dialog.ts'
import { authorize, parseChallenge, type Credentials } from './digest.ts'
import { escapeUser } from './grammar.ts'
import { headerValues, request, serialize, text, type Header, type SipRequest, type SipResponse } from './message.ts'
import { sessionTimerAnswer } from './session-timer.ts'
import type { ClientResult } from './transaction.ts'
import type { Remote } from './transport.ts'

export interface PlaceCallOptions {
  /** Request-URI of the callee, e.g. `sip:+15551234567@trunk.example.net;transport=tcp`. */
  target: string
  /** Caller ID: our number as the user part of From. */
  from: { user: string; displayName?: string }
  sdp: string
  credentials?: Credentials
  /** Ask for RFC 4028 session timers with this interval (seconds); the callee may shorten it. */
  sessionExpiresSec?: number
  headers?: Header[]
}

/** Outcome of a final non-2xx response (the `reason` of the ended event). */
export function outcomeOf(status: number): EndInfo {
  if (status === 486 || status === 600) return { reason: 'busy', status }
  if (status === 480 || status === 408) return { reason: 'no_answer', status }
  if (status === 404 || status === 604) return { reason: 'not_found', status }
  if (status === 603) return { reason: 'declined', status }
  return { reason: 'failed', status }
}

export class OutboundCall extends Call {
  readonly direction = 'outbound'
  private invite: SipRequest
  private seq = 1
  private authTries = 0
  private gotProvisional = false
  private cancelWanted = false
  private cancelSent = false

  constructor(ctx: UaContext, private readonly opts: PlaceCallOptions, readonly remote: Remote, publicHost: string) {
    super(ctx, newCallId())
    this.localSdp = opts.sdp
    // control characters could end the header line: a caller name is text, never headers
    const name = opts.from.displayName?.replace(/[\x00-\x1f\x7f]/g, ' ').trim()
    const dn = name ? `"${name.replace(/(["\\])/g, '\\$1')}" ` : ''
    const headers: Header[] = [
      { name: 'Via', value: ctx.via(remote.transport) },
      { name: 'Max-Forwards', value: '70' },
      { name: 'From', value: `${dn}<sip:${escapeUser(opts.from.user)}@${publicHost}>;tag=${newTag()}` },
      { name: 'To', value: `<${opts.target}>` },
      { name: 'Call-ID', value: this.callId },
      { name: 'CSeq', value: `${this.seq} INVITE` },
      { name: 'Contact', value: ctx.contact(remote.transport) },
      ctx.allowHeader(),
      ...(opts.sessionExpiresSec
        ? [{ name: 'Session-Expires', value: String(opts.sessionExpiresSec) }, { name: 'Supported', value: 'timer' }]
        : []),
      ...(opts.headers ?? []),
      { name: 'Content-Type', value: 'application/sdp' },
    ]
    this.invite = request('INVITE', opts.target, headers, opts.sdp)
  }

  start(): void {
    this.ctx.request(this.remote, this.invite, (r) => this.onResult(this.invite, r))
  }

  /** CANCEL before the answer (sent once a provisional response has arrived, as 9.1 asks). */
  cancel(): void {
    if (this.state !== 'ringing') return
    this.cancelWanted = true
    if (this.gotProvisional) this.sendCancel()
  }

  override hangup(): void {
    if (this.state === 'ringing') this.cancel()
    else super.hangup()
  }

  protected ownsCallId(): boolean {
    return true
  }

  private sendCancel(): void {
    if (this.cancelSent) return
    this.cancelSent = true
    const keep = new Set(['via', 'from', 'to', 'call-id', 'route', 'max-forwards'])
    const headers = this.invite.headers.filter((h) => keep.has(h.name.toLowerCase()))
    headers.push({ name: 'CSeq', value: `${this.seq} CANCEL` })
    this.ctx.request(this.remote, request('CANCEL', this.invite.uri, headers), () => {})
  }

  private onResult(sent: SipRequest, r: ClientResult): void {
    if (sent !== this.invite) return
    if ('timeout' in r) return this.end({ reason: 'timeout', status: 408 })
    if ('transportError' in r) return this.end({ reason: 'failed' })
    const res = r.response
    if (res.status < 200) {
      this.gotProvisional = true
      if (this.cancelWanted) this.sendCancel()
      this.emit('progress', res.status, res.body.length ? text(res.body) : undefined)
      return
    }
    if (res.status < 300) return this.onAnswer(res)
    if ((res.status === 401 || res.status === 407) && this.retryWithAuth(res)) return
    if (res.status === 487 && this.cancelWanted) return this.end({ reason: 'cancelled', status: 487 })
    this.end(outcomeOf(res.status))
  }

  private onAnswer(res: SipResponse): void {
    const d = uacDialog(this.invite, res, this.remote, this.seq)
    const ack = inDialogRequest(d, 'ACK', this.ctx.via(this.remote.transport), [], '', this.seq)
    this.lastAck = serialize(ack)
    this.ctx.send(this.remote, ack)
    if (this.state === 'ended' || !toTag(res)) {
      // answered after we gave up (CANCEL crossed the 200): confirm, then leave at once
      this.dialog = d
      if (this.state !== 'ended') this.end({ reason: 'failed', status: res.status })
      this.sendBye()
      return
    }
    this.confirmDialog(d)
    this.state = 'active'
    const terms = this.opts.sessionExpiresSec ? sessionTimerAnswer(res, this.opts.sessionExpiresSec) : undefined
    if (terms) {
      this.sessionTerms = { ...terms, callerSupports: true }
      this.startSessionTimer()
    }
    if (this.cancelWanted) {
      this.sendBye()
      this.end({ reason: 'cancelled' })
      return
    }
    this.emit('answered', text(res.body))
    this.emit('active')
  }

  private retryWithAuth(res: SipResponse): boolean {
    const cred = this.opts.credentials
    if (!cred || this.authTries >= 2 || this.cancelWanted) return false
    const name = res.status === 401 ? 'www-authenticate' : 'proxy-authenticate'
    const answer = res.status === 401 ? 'Authorization' : 'Proxy-Authorization'
    const challenges = headerValues(res, name).map(parseChallenge).filter((c) => c !== undefined)
    // RFC 7616 section 3.7: prefer the strongest algorithm offered
    const ch = challenges.find((c) => c.algorithm === 'SHA-256') ?? challenges[0]
    if (!ch) return false
    this.authTries++
    this.seq++
    const headers = this.invite.headers
      .filter((h) => !['via', 'cseq', 'authorization', 'proxy-authorization'].includes(h.name.toLowerCase()))
      .map((h) => ({ ...h }))
    headers.unshift({ name: 'Via', value: this.ctx.via(this.remote.transport) })
    headers.push({ name: 'CSeq', value: `${this.seq} INVITE` })
    headers.push({ name: answer, value: authorize(ch, cred, 'INVITE', this.invite.uri) })
    this.invite = request('INVITE', this.invite.uri, headers, this.invite.body)
    this.start()
    return true
  }
}
