// The user agent core: transports in, transactions and dialogs matched, inbound INVITEs checked
// against the number directory and handed to the application as InboundCall events.
import type { Call, Log, ServerTx, UaContext } from './call.ts'
import { Challenger } from './challenge.ts'
import type { DigestAlgorithm } from './digest.ts'
import { dialogKey, fromTag, newBranch, newTag, responseTo, toTag } from './dialog.ts'
import type { NumberDirectory } from './directory.ts'
import { Emitter } from './events.ts'
import { parseSipUri, parseVia, uriScheme } from './grammar.ts'
import { header, headerValues, serialize, type Header, type SipMessage, type SipRequest, type SipResponse } from './message.ts'
import { parseMessage, SipError } from './parse.ts'
import { RateLimiter } from './rate-limit.ts'
import { RefusalLog, type RequestRefusal } from './refusals.ts'
import { type CallRefusalReason, RefusalPolicy } from '../refusal/index.ts'
import { resolveTarget } from './resolve.ts'
import { Registration, type RegisterOptions } from './register.ts'
import { sessionTimerAsk } from './session-timer.ts'
import {
  ackFor, clientKey, ClientTransaction, DEFAULT_TIMERS, InviteServerTransaction, NonInviteServerTransaction, serverKey,
  type ClientResult, type Timers,
} from './transaction.ts'
import { stampVia, Transports, type BoundPorts, type ConnectionLimits, type Inbound, type Remote, type TransportName } from './transport.ts'
import { InboundCall } from './uas.ts'
import { OutboundCall, type PlaceCallOptions } from './uac.ts'
import { checkRequest, checkResponse, inviteContentProblem, type Core } from './validate.ts'

export interface UserAgentOptions {
  /** Address to listen on (default 0.0.0.0). */
  host?: string
  /** Host name or address peers reach us at; written into Via, Contact and From. */
  publicHost: string
  /** UDP and TCP port; 0 picks a free one. */
  port: number
  tlsPort?: number
  tlsCert?: string
  tlsKey?: string
  tlsCa?: string | string[]
  tlsRejectUnauthorized?: boolean
  directory: NumberDirectory
  timers?: Partial<Timers>
  /** Decides the status and Retry-After of every refused INVITE (default: the policy's own, with `retryAfterSec` for a stop). */
  policy?: RefusalPolicy
  /** Retry-After of the 503 sent to new INVITEs while stopping, when no `policy` is given. */
  retryAfterSec?: number
  /** An inbound call nobody answers within this time gets 480. */
  ringTimeoutMs?: number
  /** Refused out-of-dialog requests a source may cause per second before it is ignored (0: no limit). */
  refusalsPerSec?: number
  refusalBurst?: number
  /** Every refused request, by reason (refusals.ts), for metrics; each is also logged, aggregated per source. */
  onRefused?: (reason: RequestRefusal) => void
  idleTimeoutMs?: number
  /** Caps and deadlines of inbound TCP and TLS connections (connection-guard.ts); refusals are logged to `log`. */
  connections?: ConnectionLimits
  /** Smallest RFC 4028 session interval we accept (Min-SE); smaller gets 422. */
  minSessionExpiresSec?: number
  /** Digest algorithms offered to callers of numbers with credentials, strongest first. */
  challengeAlgorithms?: DigestAlgorithm[]
  /** Name resolution for targets we dial or register to (default: the system resolver). */
  resolveHost?: (host: string) => Promise<string[]>
  log?: Log
  /** Sees every SIP message received (in) or first sent (out), for metrics; retransmissions are not repeated. */
  observe?: (direction: 'in' | 'out', msg: SipMessage) => void
}

export { TargetRefusedError } from './resolve.ts'

const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, INFO, UPDATE, NOTIFY'
const METHODS = new Set(ALLOW.split(', '))
/** Option tags we implement (Require may name them). */
const SUPPORTED = new Set(['timer'])
const NO_LOG: Log = { debug() {}, warn() {} }

export type UserAgentEvents = { call: [InboundCall] }

export class UserAgent extends Emitter<UserAgentEvents> {
  private readonly transports: Transports
  private readonly timers: Timers
  private readonly log: Log
  private readonly serverTx = new Map<string, ServerTx>()
  private readonly clientTx = new Map<string, ClientTransaction>()
  private readonly inviteCalls = new WeakMap<InviteServerTransaction, InboundCall>()
  private readonly dialogs = new Map<string, Call>()
  private readonly calls = new Set<Call>()
  private readonly registrations = new Set<Registration>()
  private readonly limiter: RateLimiter
  private readonly refusals: RefusalLog
  private readonly challenger: Challenger
  private readonly policy: RefusalPolicy
  private readonly ctx: UaContext
  private stopping = false
  private drained?: () => void
  ports: BoundPorts = {}

  constructor(private readonly opts: UserAgentOptions) {
    super()
    this.timers = { ...DEFAULT_TIMERS, ...opts.timers }
    this.policy = opts.policy ?? new RefusalPolicy(opts.retryAfterSec === undefined ? {} : { stopping: opts.retryAfterSec })
    this.log = opts.log ?? NO_LOG
    this.onListenerError = (err) => this.log.warn({ err }, 'call listener threw')
    this.challenger = new Challenger(opts.publicHost, opts.challengeAlgorithms)
    this.limiter = new RateLimiter(opts.refusalsPerSec ?? 0, opts.refusalBurst ?? 50)
    this.refusals = new RefusalLog({ info: (o, m) => (this.log.info ?? this.log.debug).call(this.log, o, m) }, { onRefused: opts.onRefused })
    this.transports = new Transports({
      host: opts.host ?? '0.0.0.0', port: opts.port, tlsPort: opts.tlsPort, tlsCert: opts.tlsCert, tlsKey: opts.tlsKey,
      tlsCa: opts.tlsCa, tlsRejectUnauthorized: opts.tlsRejectUnauthorized, idleTimeoutMs: opts.idleTimeoutMs, log: this.log, ...opts.connections,
    })
    this.transports.onMessage = (m) => this.receive(m)
    this.transports.onError = (err, where) => this.log.debug({ err: err.message, where }, 'sip transport error')
    this.ctx = {
      timers: this.timers,
      log: this.log,
      send: (to, msg) => this.send(to, msg),
      sendBytes: (to, bytes) => this.sendBytes(to, bytes),
      request: (to, req, onResult) => this.request(to, req, onResult),
      via: (t) => this.via(t),
      contact: (t) => this.contact(t),
      allowHeader: () => ({ name: 'Allow', value: ALLOW }),
      addDialog: (k, call) => this.dialogs.set(k, call),
      removeDialog: (k) => this.dialogs.delete(k),
      callEnded: (call) => {
        this.calls.delete(call)
        if (this.calls.size === 0) this.drained?.()
      },
    }
  }

  async start(): Promise<BoundPorts> {
    this.ports = await this.transports.start()
    return this.ports
  }

  /**
   * Graceful stop: new INVITEs get 503 with Retry-After while existing calls may finish for up
   * to `drainMs`; calls still up then are hung up, and the sockets close.
   */
  async stop(drainMs = 0): Promise<void> {
    this.stopping = true
    if (this.calls.size && drainMs > 0) {
      await new Promise<void>((res) => {
        const t = setTimeout(res, drainMs)
        this.drained = () => {
          clearTimeout(t)
          res()
        }
      })
    }
    for (const call of [...this.calls]) call.hangup()
    // bindings are removed (Expires: 0) before the sockets close, waiting at most 2 s for the registrars
    await Promise.all(
      [...this.registrations].map(
        (reg) =>
          new Promise<void>((res) => {
            const t = setTimeout(res, 2000)
            reg.once('unregistered', () => (clearTimeout(t), res()))
            reg.once('failed', () => (clearTimeout(t), res()))
            reg.stop()
          }),
      ),
    )
    for (const call of [...this.calls]) call.abandon()
    for (const tx of [...this.serverTx.values(), ...this.clientTx.values()]) tx.terminate()
    this.refusals.flush()
    this.refusals.stop()
    await this.transports.stop()
  }

  /** Places an outbound call; listen to its progress, answered and ended events. */
  async placeCall(opts: PlaceCallOptions): Promise<OutboundCall> {
    const { remote } = await resolveTarget(opts.target, this.opts.resolveHost)
    const call = new OutboundCall(this.ctx, opts, remote, this.opts.publicHost)
    this.calls.add(call)
    call.start()
    return call
  }

  /** Registers with a trunk's registrar and keeps the registration fresh until `stop()`. */
  async register(opts: RegisterOptions): Promise<Registration> {
    const { remote, host } = await resolveTarget(opts.registrar, this.opts.resolveHost)
    const reg = new Registration(this.ctx, opts, remote, host)
    this.registrations.add(reg)
    reg.on('unregistered', () => this.registrations.delete(reg))
    reg.start()
    return reg
  }

  stats() {
    return {
      serverTransactions: this.serverTx.size,
      clientTransactions: this.clientTx.size,
      dialogs: this.dialogs.size,
      calls: this.calls.size,
      connections: this.transports.connectionCount(),
    }
  }

  /** Our listening port for a transport; without a TLS listener, TLS requests name the TCP port. */
  private portFor(t: TransportName): number | undefined {
    if (t === 'tls') return this.ports.tls ?? this.ports.tcp
    return t === 'tcp' ? this.ports.tcp : this.ports.udp
  }

  private via(t: TransportName): string {
    const port = this.portFor(t)
    return `SIP/2.0/${t.toUpperCase()} ${this.opts.publicHost}:${port};branch=${newBranch()};rport`
  }

  private contact(t: TransportName): string {
    const port = this.portFor(t)
    return `<sip:${this.opts.publicHost}:${port}${t === 'udp' ? '' : `;transport=${t}`}>`
  }

  private send(to: Remote, msg: SipMessage): void {
    this.opts.observe?.('out', msg)
    this.sendBytes(to, serialize(msg))
  }

  private sendBytes(to: Remote, bytes: Uint8Array): void {
    this.transports.send(to, bytes).catch((err: Error) => this.log.debug({ err: err.message, to }, 'sip send failed'))
  }

  private request(to: Remote, req: SipRequest, onResult: (r: ClientResult) => void): ClientTransaction {
    const branch = parseVia(header(req, 'via')!)!.params.get('branch')!
    const key = clientKey(branch, req.method)
    const tx = new ClientTransaction(key, req, to, this.timers, (dest, bytes) => this.sendBytes(dest, bytes), (res) => ackFor(req, res))
    this.opts.observe?.('out', req)
    tx.onResult = onResult
    tx.onError = (err) => this.log.warn({ err }, 'client transaction timer failed')
    tx.onTerminated = () => this.clientTx.delete(key)
    this.clientTx.set(key, tx)
    this.transports.ready(to).then(() => tx.start(), (err: Error) => tx.fail(err))
    return tx
  }

  private receive(m: Inbound): void {
    let parsed
    try {
      parsed = parseMessage(m.bytes, m.datagram)
    } catch (err) {
      this.log.debug({ err: (err as Error).message, from: m.remote }, 'unparseable SIP message dropped')
      return
    }
    const msg = parsed.message
    this.opts.observe?.('in', msg)
    if (msg.kind === 'response') return this.onResponse(msg)
    if (this.limiter.blocked(m.remote.address)) return this.refusals.request(msg, m.remote, undefined, 'rate_limited')
    if (parsed.problem) return this.refuse(msg, m.remote, parsed.problem.status, parsed.problem.reason)
    const checked = checkRequest(msg)
    if (!checked.ok) return this.refuse(msg, m.remote, checked.problem.status, checked.problem.reason)
    stampVia(msg, m.remote)
    this.onRequest(msg, checked.core, m.remote)
  }

  // Its closures are made here, not in onRequest: closures share their function's scope, and one
  // that captured onRequest's would keep the whole request alive as long as the transaction.
  private newServerTx(key: string, req: SipRequest, remote: Remote): ServerTx {
    const tx: ServerTx =
      req.method === 'INVITE'
        ? new InviteServerTransaction(key, req, remote, this.timers, this.txSend)
        : new NonInviteServerTransaction(key, req, remote, this.timers, this.txSend)
    tx.onTerminated = () => this.serverTx.delete(key)
    tx.onError = this.txError
    if (this.opts.observe) tx.onRespond = this.observeOut
    this.serverTx.set(key, tx)
    return tx
  }

  private readonly txSend = (to: Remote, bytes: Uint8Array) => this.sendBytes(to, bytes)
  private readonly txError = (err: unknown) => this.log.warn({ err }, 'server transaction timer failed')
  private readonly observeOut = (res: SipResponse) => this.opts.observe?.('out', res)

  /** A stateless error answer to a request we could not use; never to an ACK. */
  private refuse(req: SipRequest, remote: Remote, status: number, reason?: string): void {
    if (req.method === 'ACK') return
    this.limiter.hit(remote.address)
    this.refusals.request(req, remote, status)
    this.send(remote, responseTo(req, status, { reason }))
  }

  private onResponse(res: SipResponse): void {
    const checked = checkResponse(res)
    if (!checked.ok) return
    const branch = checked.core.via.params.get('branch') ?? ''
    const tx = this.clientTx.get(clientKey(branch, checked.core.cseq.method))
    if (tx) return tx.receive(res)
    if (checked.core.cseq.method === 'INVITE' && res.status >= 200 && res.status < 300) {
      this.dialogs.get(dialogKey(checked.core.callId, fromTag(res) ?? '', toTag(res) ?? ''))?.retransmitted2xx()
    }
  }

  private onRequest(req: SipRequest, core: Core, remote: Remote): void {
    if (req.method === 'ACK') {
      const tx = this.serverTx.get(serverKey(req, core))
      if (tx instanceof InviteServerTransaction && tx.lastStatus >= 300) return tx.ack()
      const call = this.dialogs.get(dialogKey(core.callId, toTag(req) ?? '', fromTag(req) ?? ''))
      call?.onAck(req)
      return
    }
    const key = serverKey(req, core)
    const existing = this.serverTx.get(key)
    if (existing) return existing.retransmission(remote)
    const tx = this.newServerTx(key, req, remote)
    const tag = newTag()
    const reply = (status: number, headers: Header[] = [], why?: RequestRefusal) => {
      // a 401 is the normal first step of an authenticated call, not a refusal
      if (status >= 400 && status !== 401) this.limiter.hit(remote.address)
      this.refusals.request(req, remote, status, why)
      tx.respond(responseTo(req, status, { headers, toTag: tag }))
    }
    const refuse = (reason: CallRefusalReason, headers: Header[] = []) => {
      const r = this.policy.of(reason)
      reply(r.sip, [...(r.retryAfterSec === undefined ? [] : [{ name: 'Retry-After', value: String(r.retryAfterSec) }]), ...headers], reason)
    }

    if (!METHODS.has(req.method)) return reply(405, [{ name: 'Allow', value: ALLOW }])
    const scheme = uriScheme(req.uri)
    if (scheme !== 'sip' && scheme !== 'sips' && scheme !== 'tel') return reply(416)
    const required = headerValues(req, 'require').filter((v) => v !== '' && !SUPPORTED.has(v.toLowerCase()))
    if (required.length && req.method !== 'CANCEL') return reply(420, [{ name: 'Unsupported', value: required.join(', ') }])
    if (req.method === 'CANCEL') return this.onCancel(req, core, tx as NonInviteServerTransaction)

    const remoteTag = toTag(req)
    if (remoteTag !== undefined) {
      const call = this.dialogs.get(dialogKey(core.callId, remoteTag, fromTag(req) ?? ''))
      if (!call) return reply(481)
      return call.onInDialog(req, tx)
    }
    if (req.method === 'OPTIONS') {
      // a proxy probing its nodes (Kamailio's dispatcher) takes a stopping node out of rotation
      if (this.stopping) return refuse('stopping')
      return reply(200, [{ name: 'Allow', value: ALLOW }, { name: 'Accept', value: 'application/sdp' }, { name: 'Supported', value: [...SUPPORTED].join(', ') }])
    }
    if (req.method !== 'INVITE') return reply(481)
    this.onInvite(req, core, tx as InviteServerTransaction, reply, refuse).catch((err: unknown) => {
      this.log.warn({ err }, 'inbound INVITE failed')
      if (tx.state === 'proceeding') reply(500)
    })
  }

  private async onInvite(
    req: SipRequest, core: Core, tx: InviteServerTransaction,
    reply: (s: number, h?: Header[], why?: RequestRefusal) => void, refuse: (r: CallRefusalReason, h?: Header[]) => void,
  ): Promise<void> {
    if (this.stopping) return refuse('stopping')
    const content = inviteContentProblem(req)
    if (content) return reply(content.status, content.headers)
    const timer = sessionTimerAsk(req, this.opts.minSessionExpiresSec ?? 90)
    if (timer && 'tooSmall' in timer) return refuse('session_interval', [{ name: 'Min-SE', value: String(timer.minSec) }])
    reply(100)
    const users = [parseSipUri(req.uri)?.user, parseSipUri(core.to.uri)?.user].filter((u): u is string => !!u)
    let decision
    try {
      decision = await this.opts.directory.resolveInbound({ users, source: tx.remote })
    } catch (err) {
      this.log.warn({ err }, 'number directory failed')
      return refuse('unavailable')
    }
    if (tx.state !== 'proceeding') return
    if (!decision.accept) {
      const why = decision.why ?? (decision.status === 404 ? 'unknown_number' : 'not_trunk')
      if (decision.status !== 403) return refuse(why)
      // a source that is no trunk gets what a caller of a number with credentials gets (a
      // challenge, then 403), so a scanner cannot tell which numbers exist
      this.limiter.hit(tx.remote.address)
      return header(req, 'authorization') ? refuse(why) : reply(401, this.challenger.challenge(), why)
    }
    if (decision.credentials && !this.challenger.verify(req, decision.credentials)) {
      // a wrong answer is refused outright; no answer yet (or a stale nonce) is challenged
      return header(req, 'authorization') && !this.challenger.isStale(req) ? refuse('bad_digest') : reply(401, this.challenger.challenge())
    }
    const refusal = (reason: CallRefusalReason) => {
      const r = this.policy.of(reason)
      this.limiter.hit(tx.remote.address)
      this.refusals.request(req, tx.remote, r.sip, reason)
      return r
    }
    const call = new InboundCall(this.ctx, req, tx, { number: decision.number, context: decision.context, refusal }, this.opts.ringTimeoutMs ?? 60_000, timer?.terms)
    this.calls.add(call)
    this.inviteCalls.set(tx, call)
    this.forgetCallOnFinal(tx)
    if (!this.emit('call', call)) call.refuse('unavailable')
  }

  /** A CANCEL after the final response changes nothing: the call need not be found then. */
  private forgetCallOnFinal(tx: InviteServerTransaction): void {
    tx.onFinal = () => this.inviteCalls.delete(tx)
  }

  private onCancel(req: SipRequest, core: Core, tx: NonInviteServerTransaction): void {
    const invite = this.serverTx.get(serverKey(req, core, 'INVITE'))
    if (!(invite instanceof InviteServerTransaction)) return tx.respond(responseTo(req, 481))
    tx.respond(responseTo(req, 200))
    const call = this.inviteCalls.get(invite)
    if (call) call.cancelled()
    else if (invite.state === 'proceeding' && invite.request) invite.respond(responseTo(invite.request, 487, { toTag: newTag() }))
  }
}
