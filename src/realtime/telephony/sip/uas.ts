// An inbound call: our side of an INVITE the directory accepted. The application answers or
// rejects it; everything after that is the shared Call behaviour.
import { Call, type UaContext } from './call.ts'
import { newTag, responseTo, uasDialog } from './dialog.ts'
import { parseNameAddr } from './grammar.ts'
import { header, headerValues, text, type SipRequest } from './message.ts'
import { sessionTimerHeaders, type SessionTimerTerms } from './session-timer.ts'
import type { InviteServerTransaction } from './transaction.ts'
import type { Remote } from './transport.ts'
import type { CallRefusalReason, Refusal } from '../refusal/index.ts'

export interface InboundCallInfo {
  /** The number of ours that was called, as the directory names it. */
  number: string
  /** What the directory attached to the number (workspace, agent...). */
  context: unknown
  from: { displayName?: string; uri: string }
  to: string
  remote: Remote
  /** The SDP offer, when the INVITE carried one. */
  offer?: string
}

export class InboundCall extends Call {
  readonly direction = 'inbound'
  readonly localTag = newTag()
  readonly info: InboundCallInfo
  private ringTimer?: ReturnType<typeof setTimeout>
  private readonly refusal: (reason: CallRefusalReason) => Refusal

  constructor(
    ctx: UaContext,
    private readonly invite: SipRequest,
    private readonly tx: InviteServerTransaction,
    directory: { number: string; context: unknown; refusal: (reason: CallRefusalReason) => Refusal },
    ringTimeoutMs: number,
    sessionTerms?: SessionTimerTerms,
  ) {
    super(ctx, header(invite, 'call-id')!.trim())
    const { number, context } = directory
    this.refusal = directory.refusal
    if (sessionTerms) this.sessionTerms = { ...sessionTerms, callerSupports: sessionTerms.refresher === 'uac' || callerSupportsTimer(invite) }
    const from = parseNameAddr(header(invite, 'from')!)!
    this.info = {
      number,
      context,
      from: { displayName: from.displayName, uri: from.uri },
      to: parseNameAddr(header(invite, 'to')!)!.uri,
      remote: tx.remote,
      offer: invite.body.length ? text(invite.body) : undefined,
    }
    this.ringTimer = setTimeout(() => {
      if (this.state === 'ringing') this.reject(480)
    }, ringTimeoutMs)
  }

  /** 180 Ringing, or 183 Session Progress with early media SDP. */
  ringing(earlySdp?: string): void {
    if (this.state !== 'ringing') return
    const headers = [{ name: 'Contact', value: this.ctx.contact(this.tx.remote.transport) }]
    if (earlySdp) headers.push({ name: 'Content-Type', value: 'application/sdp' })
    this.tx.respond(responseTo(this.invite, earlySdp ? 183 : 180, { toTag: this.localTag, headers, body: earlySdp }))
  }

  /** 200 OK with our SDP answer; the call becomes active when the ACK arrives. */
  answer(sdp: string): void {
    if (this.state !== 'ringing') return
    clearTimeout(this.ringTimer)
    this.state = 'answering'
    this.localSdp = sdp
    const seq = Number(header(this.invite, 'cseq')!.trim().split(/\s+/)[0])
    const d = uasDialog(this.invite, this.localTag, this.tx.remote, seq)
    this.confirmDialog(d)
    const res = responseTo(this.invite, 200, {
      toTag: this.localTag,
      headers: [
        { name: 'Contact', value: this.ctx.contact(this.tx.remote.transport) },
        this.ctx.allowHeader(),
        { name: 'Content-Type', value: 'application/sdp' },
        ...(this.sessionTerms ? sessionTimerHeaders(this.sessionTerms, this.sessionTerms.callerSupports) : []),
      ],
      body: sdp,
    })
    this.tx.respond(res)
    this.repeat2xxUntilAck(res, this.tx.remote, seq)
  }

  /** A final error response; the call ends with reason `rejected`. */
  reject(status = 486, extra: { reason?: string; retryAfterSec?: number } = {}): void {
    if (this.state !== 'ringing') return
    const headers = extra.retryAfterSec !== undefined ? [{ name: 'Retry-After', value: String(extra.retryAfterSec) }] : []
    this.tx.respond(responseTo(this.invite, status < 300 || status > 699 ? 486 : status, { toTag: this.localTag, reason: extra.reason, headers }))
    this.end({ reason: 'rejected', status })
  }

  /** A refusal of the refusal policy: its status and Retry-After, counted and logged with the user agent's own. */
  refuse(reason: CallRefusalReason): void {
    if (this.state !== 'ringing') return
    const r = this.refusal(reason)
    this.reject(r.sip, { retryAfterSec: r.retryAfterSec })
  }

  /** The caller sent CANCEL before we answered (9.2): 487 to the INVITE. */
  cancelled(): void {
    if (this.state !== 'ringing') return
    this.tx.respond(responseTo(this.invite, 487, { toTag: this.localTag }))
    this.end({ reason: 'cancelled', status: 487 })
  }

  protected ownsCallId(): boolean {
    return false
  }

  override hangup(): void {
    if (this.state === 'ringing') this.reject(480)
    else super.hangup()
  }

  protected override end(info: Parameters<Call['end']>[0]): void {
    clearTimeout(this.ringTimer)
    super.end(info)
  }
}

const callerSupportsTimer = (req: SipRequest) =>
  headerValues(req, 'supported').concat(headerValues(req, 'require')).some((v) => v.toLowerCase() === 'timer')
