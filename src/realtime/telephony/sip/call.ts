// What inbound and outbound calls share: the confirmed dialog and its in-dialog requests
// (BYE, re-INVITE/UPDATE hold and unhold, INFO DTMF, OPTIONS), 2xx retransmission, hang-up.
import { dialogKey, inDialogRequest, responseTo, type Dialog } from './dialog.ts'
import { Emitter } from './events.ts'
import { answerDirection, isHold, sdpDirection, withDirection, type Direction } from './hold.ts'
import { offeredAddressProblem, SdpError } from '../sdp/index.ts'
import { mediaType, parseNameAddr } from './grammar.ts'
import { SessionTimer, type SessionTimerTerms } from './session-timer.ts'
import { header, serialize, text, type Header, type SipMessage, type SipRequest, type SipResponse } from './message.ts'
import type { ClientResult, ClientTransaction, NonInviteServerTransaction, InviteServerTransaction, Timers } from './transaction.ts'
import type { Remote, TransportName } from './transport.ts'

export type EndReason =
  | 'remote_hangup' | 'local_hangup' | 'cancelled' | 'rejected' | 'no_ack' | 'timeout' | 'busy' | 'no_answer'
  | 'not_found' | 'declined' | 'failed' | 'shutdown' | 'transferred'

/** Progress of a blind transfer we asked for (RFC 3515 REFER, NOTIFY with message/sipfrag). */
export type TransferState = 'accepted' | 'trying' | 'succeeded' | 'failed'

export interface EndInfo {
  reason: EndReason
  /** The SIP status that ended the call, when one did. */
  status?: number
}

export type CallEvents = {
  progress: [status: number, sdp: string | undefined]
  answered: [sdp: string]
  active: []
  ended: [EndInfo]
  hold: []
  unhold: []
  dtmf: [digit: string, durationMs: number]
  transfer: [state: TransferState, status?: number]
  /** An RFC 4028 session refresh went through (received, or ours answered 2xx). */
  sessionRefresh: []
}

export interface Log {
  debug(obj: object, msg?: string): void
  /** Refused requests are told at info (refusals.ts); a log without it gets them at debug. */
  info?(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
}

/** What a call needs from the user agent that owns it. */
export interface UaContext {
  timers: Timers
  log: Log
  send(to: Remote, msg: SipMessage): void
  sendBytes(to: Remote, bytes: Uint8Array): void
  request(to: Remote, req: SipRequest, onResult: (r: ClientResult) => void): ClientTransaction
  via(transport: TransportName): string
  contact(transport: TransportName): string
  allowHeader(): Header
  addDialog(key: string, call: Call): void
  removeDialog(key: string): void
  callEnded(call: Call): void
}

export type CallState = 'ringing' | 'answering' | 'active' | 'ended'

export type ServerTx = InviteServerTransaction | NonInviteServerTransaction

export abstract class Call extends Emitter<CallEvents> {
  state: CallState = 'ringing'
  dialog?: Dialog
  /** Our current SDP (the answer we gave or the offer we made). */
  localSdp?: string
  held = false
  endInfo?: EndInfo
  /**
   * Set by whoever owns the call's media: our answer to a re-offer, from the peer's offer and our
   * SDP at the answered direction. Throws an SdpError (488) to refuse the re-offer, keeping the call.
   */
  reanswer?: (offer: string, answer: string) => string
  /** RFC 4028 terms agreed for this call, when the caller asked for session timers. */
  protected sessionTerms?: SessionTimerTerms & { callerSupports: boolean }
  private sessionTimer?: SessionTimer
  /** Our own re-INVITE is waiting for its answer (an offer from the peer now is glare: 491). */
  private offering = false
  /** The ACK of the last 2xx we received, sent again when that 2xx is repeated. */
  protected lastAck?: Uint8Array
  private ackWait?: { timer?: ReturnType<typeof setTimeout>; giveUp: ReturnType<typeof setTimeout>; seq: number }

  constructor(protected readonly ctx: UaContext, readonly callId: string) {
    super()
    this.onListenerError = (err) => ctx.log.warn({ err, callId }, 'call event listener threw')
  }

  /** Sends a BYE when the call is up; subclasses handle calls not yet answered. */
  hangup(): void {
    if (this.state === 'ended' || !this.dialog) return
    this.sendBye()
    this.end({ reason: 'local_hangup' })
  }

  /** The agent stops: a call awaiting an answer it could not cancel (RFC 3261 9.1) ends unsent. */
  abandon(): void { this.end({ reason: 'cancelled' }) }

  protected sendBye(): void {
    const d = this.dialog!
    const bye = inDialogRequest(d, 'BYE', this.ctx.via(d.flow.transport))
    this.ctx.request(d.flow, bye, () => {})
  }

  protected end(info: EndInfo): void {
    if (this.state === 'ended') return
    this.state = 'ended'
    this.endInfo = info
    this.stopAckWait()
    this.sessionTimer?.stop()
    if (this.dialog) this.ctx.removeDialog(dialogKey(this.dialog.callId, this.dialog.localTag, this.dialog.remoteTag))
    this.ctx.callEnded(this)
    this.emit('ended', info)
  }

  protected confirmDialog(d: Dialog): void {
    this.dialog = d
    this.ctx.addDialog(dialogKey(d.callId, d.localTag, d.remoteTag), this)
  }

  /**
   * Repeats a 2xx to an INVITE (already sent through its transaction) until the ACK
   * (13.3.1.4); no ACK ends the call with a BYE.
   */
  protected repeat2xxUntilAck(res: SipResponse, to: Remote, seq: number): void {
    this.stopAckWait()
    const t = this.ctx.timers
    const wait: NonNullable<typeof this.ackWait> = {
      seq,
      giveUp: setTimeout(() => {
        this.ackWait = undefined
        if (wait.timer) clearTimeout(wait.timer)
        if (this.state === 'ended') return
        if (this.dialog) this.sendBye()
        this.end({ reason: 'no_ack' })
      }, 64 * t.t1),
    }
    if (to.transport === 'udp') {
      let interval = t.t1
      const again = () => {
        this.ctx.send(to, res)
        interval = Math.min(2 * interval, t.t2)
        wait.timer = setTimeout(again, interval)
      }
      wait.timer = setTimeout(again, interval)
    }
    this.ackWait = wait
  }

  private stopAckWait(): void {
    if (!this.ackWait) return
    clearTimeout(this.ackWait.giveUp)
    if (this.ackWait.timer) clearTimeout(this.ackWait.timer)
    this.ackWait = undefined
  }

  /** An ACK inside the dialog: it confirms the 2xx we keep repeating. */
  onAck(req: SipRequest): void {
    const seq = Number(header(req, 'cseq')!.trim().split(/\s+/)[0])
    if (!this.ackWait || seq !== this.ackWait.seq) return
    this.stopAckWait()
    if (this.state === 'answering') {
      this.state = 'active'
      this.startSessionTimer()
      this.emit('active')
    }
  }

  /** A request whose Call-ID and tags match our dialog. */
  onInDialog(req: SipRequest, tx: ServerTx): void {
    const d = this.dialog!
    const seq = Number(header(req, 'cseq')!.trim().split(/\s+/)[0])
    if (seq <= d.remoteSeq && req.method !== 'ACK') {
      tx.respond(responseTo(req, 500, { reason: 'Out of order CSeq' }))
      return
    }
    d.remoteSeq = seq
    switch (req.method) {
      case 'BYE':
        tx.respond(responseTo(req, 200))
        this.end({ reason: 'remote_hangup' })
        return
      case 'INVITE':
      case 'UPDATE':
        return this.onOffer(req, tx, seq)
      case 'INFO':
        return this.onInfo(req, tx)
      case 'OPTIONS':
        tx.respond(responseTo(req, 200, { headers: [this.ctx.allowHeader()] }))
        return
      case 'NOTIFY':
        return this.onNotify(req, tx)
      default:
        tx.respond(responseTo(req, 405, { headers: [this.ctx.allowHeader()] }))
    }
  }

  private onOffer(req: SipRequest, tx: ServerTx, seq: number): void {
    if (this.offering && (req.method === 'INVITE' || req.body.length)) {
      tx.respond(responseTo(req, 491))
      return
    }
    if (this.ackWait && req.method === 'INVITE') {
      tx.respond(responseTo(req, 500, { reason: 'Previous INVITE pending', headers: [{ name: 'Retry-After', value: '1' }] }))
      return
    }
    const d = this.dialog!
    const headers: Header[] = [{ name: 'Contact', value: this.ctx.contact(d.flow.transport) }, this.ctx.allowHeader()]
    let body = ''
    if (req.body.length && this.localSdp) {
      if (mediaType(header(req, 'content-type') ?? '') !== 'application/sdp') {
        tx.respond(responseTo(req, 415, { headers: [{ name: 'Accept', value: 'application/sdp' }] }))
        return
      }
      // an address we must not send media to: 488, and the call keeps its media as it was
      const refused = offeredAddressProblem(text(req.body))
      if (refused) {
        this.ctx.log.warn({ callId: this.callId, reason: refused }, 'a re-offer names a refused media address')
        tx.respond(responseTo(req, 488))
        return
      }
      let offered: Direction
      try {
        offered = sdpDirection(text(req.body))
      } catch {
        tx.respond(responseTo(req, 488))
        return
      }
      body = withDirection(this.localSdp, answerDirection(offered))
      if (this.reanswer) {
        try {
          body = this.reanswer(text(req.body), body)
        } catch (err) {
          const status = err instanceof SdpError ? err.status : 488
          this.ctx.log.warn({ callId: this.callId, status, reason: (err as Error).message }, 'a re-offer was refused; the call keeps its media')
          tx.respond(responseTo(req, status))
          return
        }
      }
      this.localSdp = body
      const hold = isHold(offered)
      if (hold !== this.held) {
        this.held = hold
        this.emit(hold ? 'hold' : 'unhold')
      }
      headers.push({ name: 'Content-Type', value: 'application/sdp' })
    } else if (this.localSdp) {
      body = this.localSdp
      headers.push({ name: 'Content-Type', value: 'application/sdp' })
    }
    if (this.sessionTerms) {
      headers.push({ name: 'Session-Expires', value: `${this.sessionTerms.intervalSec};refresher=${this.sessionTerms.refresher}` })
      if (this.sessionTerms.callerSupports) headers.push({ name: 'Require', value: 'timer' })
      this.sessionTimer?.start()
      this.emit('sessionRefresh')
    }
    const res = responseTo(req, 200, { headers, body })
    if (req.method === 'INVITE') {
      ;(tx as InviteServerTransaction).respond(res)
      this.repeat2xxUntilAck(res, tx.remote, seq)
    } else tx.respond(res)
  }

  /** Puts the peer on hold with a re-INVITE (our SDP as sendonly); resolves true when accepted. */
  hold(): Promise<boolean> {
    return this.reoffer('sendonly')
  }

  /** Takes the peer off hold (sendrecv again); resolves true when accepted. */
  unhold(): Promise<boolean> {
    return this.reoffer('sendrecv')
  }

  private reoffer(dir: Direction, retried = false): Promise<boolean> {
    const d = this.dialog
    if (!d || this.state !== 'active' || !this.localSdp || this.offering) return Promise.resolve(false)
    this.offering = true
    const sdp = withDirection(this.localSdp, dir)
    const headers: Header[] = [{ name: 'Contact', value: this.ctx.contact(d.flow.transport) }, { name: 'Content-Type', value: 'application/sdp' }]
    const invite = inDialogRequest(d, 'INVITE', this.ctx.via(d.flow.transport), headers, sdp)
    const seq = d.localSeq
    return new Promise((resolve) => {
      this.ctx.request(d.flow, invite, (r) => {
        if ('response' in r && r.response.status < 200) return
        this.offering = false
        const status = 'response' in r ? r.response.status : 0
        if (status >= 200 && status < 300) {
          const ack = inDialogRequest(d, 'ACK', this.ctx.via(d.flow.transport), [], '', seq)
          this.lastAck = serialize(ack)
          this.ctx.send(d.flow, ack)
          this.localSdp = sdp
          return resolve(true)
        }
        if (status !== 491 || retried) return resolve(false)
        // RFC 3261 14.1: the Call-ID owner waits 2.1 to 4 s, the other side up to 2 s
        const wait = this.ownsCallId() ? 2100 + Math.random() * 1900 : Math.random() * 2000
        setTimeout(() => resolve(this.reoffer(dir, true)), wait)
      })
    })
  }

  /** True when we chose this call's Call-ID (we placed the call). */
  protected abstract ownsCallId(): boolean

  /** A 2xx repeated after our ACK: the ACK was lost, send it again. */
  retransmitted2xx(): void {
    if (this.lastAck && this.dialog) this.ctx.sendBytes(this.dialog.flow, this.lastAck)
  }

  private onInfo(req: SipRequest, tx: ServerTx): void {
    const type = mediaType(header(req, 'content-type') ?? '')
    if (req.body.length && type === 'application/dtmf-relay') {
      const body = text(req.body)
      const signal = /^Signal\s*=\s*([0-9A-D*#])\s*$/im.exec(body)?.[1]
      const duration = Number(/^Duration\s*=\s*(\d+)\s*$/im.exec(body)?.[1] ?? 160)
      tx.respond(responseTo(req, 200))
      if (signal) this.emit('dtmf', signal, duration)
      return
    }
    if (req.body.length && type !== 'application/dtmf') {
      tx.respond(responseTo(req, 415, { headers: [{ name: 'Accept', value: 'application/dtmf-relay' }] }))
      return
    }
    tx.respond(responseTo(req, 200))
  }

  protected startSessionTimer(): void {
    const terms = this.sessionTerms
    if (!terms) return
    const expire = () => {
      if (this.state === 'ended') return
      this.sendBye()
      this.end({ reason: 'timeout' })
    }
    const refresh = () => {
      const d = this.dialog
      if (!d || this.state === 'ended') return
      const se = { name: 'Session-Expires', value: `${terms.intervalSec};refresher=${terms.refresher}` }
      const update = inDialogRequest(d, 'UPDATE', this.ctx.via(d.flow.transport), [se, { name: 'Supported', value: 'timer' }])
      this.ctx.request(d.flow, update, (r) => {
        if ('response' in r && r.response.status < 200) return
        if ('response' in r && r.response.status < 300) {
          this.sessionTimer?.start()
          this.emit('sessionRefresh')
        } else expire()
      })
    }
    this.sessionTimer = new SessionTimer(terms, this.ownsCallId(), refresh, expire)
    this.sessionTimer.start()
  }

  /**
   * Blind transfer: asks the peer (REFER) to call `target` instead; `transfer` events report
   * the peer's progress and a success ends this call with reason `transferred`.
   */
  transfer(target: string): void {
    const d = this.dialog
    if (!d || this.state !== 'active') return
    const refer = inDialogRequest(d, 'REFER', this.ctx.via(d.flow.transport), [
      { name: 'Refer-To', value: `<${target}>` },
      { name: 'Referred-By', value: `<${parseNameAddr(d.localUri)?.uri ?? ''}>` },
      { name: 'Contact', value: this.ctx.contact(d.flow.transport) },
    ])
    this.ctx.request(d.flow, refer, (r) => {
      if ('response' in r && r.response.status < 200) return
      if ('response' in r && r.response.status < 300) this.emit('transfer', 'accepted', r.response.status)
      else this.emit('transfer', 'failed', 'response' in r ? r.response.status : undefined)
    })
  }

  private onNotify(req: SipRequest, tx: ServerTx): void {
    const event = (header(req, 'event') ?? '').split(';')[0]!.trim().toLowerCase()
    if (event !== 'refer') {
      tx.respond(responseTo(req, 489, { reason: 'Bad Event' }))
      return
    }
    tx.respond(responseTo(req, 200))
    const status = Number(/^SIP\/2\.0 (\d{3})/.exec(text(req.body))?.[1] ?? NaN)
    if (!Number.isFinite(status)) return
    if (status < 200) this.emit('transfer', 'trying', status)
    else if (status < 300) {
      this.emit('transfer', 'succeeded', status)
      if (this.state !== 'ended') {
        this.sendBye()
        this.end({ reason: 'transferred' })
      }
    } else this.emit('transfer', 'failed', status)
  }

  /** Sends a DTMF digit as INFO application/dtmf-relay. */
  sendDtmf(digit: string, durationMs = 160): void {
    if (!this.dialog || this.state !== 'active' || !/^[0-9A-D*#]$/.test(digit)) return
    const d = this.dialog
    const info = inDialogRequest(d, 'INFO', this.ctx.via(d.flow.transport), [{ name: 'Content-Type', value: 'application/dtmf-relay' }], `Signal=${digit}\r\nDuration=${durationMs}\r\n`)
    this.ctx.request(d.flow, info, () => {})
  }
}
