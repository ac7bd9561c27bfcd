// Registration with a trunk's registrar (RFC 3261 section 10), refreshed at half the granted
// time, with digest authentication. The last challenge is reused (next nonce count) so a
// refresh costs one round trip; a fresh 401/407 is answered once per attempt.
import type { UaContext } from './call.ts'
import { newCallId, newTag } from './dialog.ts'
import { authorize, parseChallenge, type Challenge, type Credentials } from './digest.ts'
import { Emitter } from './events.ts'
import { parseNameAddr } from './grammar.ts'
import { header, headerValues, request, type Header, type SipResponse } from './message.ts'
import type { ClientResult } from './transaction.ts'
import type { Remote } from './transport.ts'

export interface RegisterOptions {
  /** The registrar, e.g. `sip:trunk.example.net;transport=tcp`. */
  registrar: string
  /** The user part of our address of record at the registrar. */
  user: string
  credentials?: Credentials
  expiresSec?: number
}

export type RegistrationEvents = {
  registered: [expiresSec: number]
  failed: [status: number | undefined]
  unregistered: []
}

export class Registration extends Emitter<RegistrationEvents> {
  private readonly callId = newCallId()
  private readonly tag = newTag()
  private seq = 0
  private challenge?: { ch: Challenge; header: string; nc: number }
  private timer?: ReturnType<typeof setTimeout>
  private stopped = false
  readonly aor: string

  constructor(private readonly ctx: UaContext, private readonly opts: RegisterOptions, readonly remote: Remote, registrarHost: string) {
    super()
    this.aor = `sip:${opts.user}@${registrarHost}`
  }

  start(): void {
    this.send(this.opts.expiresSec ?? 3600, false)
  }

  /** Removes our binding (Expires: 0) and stops refreshing. */
  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.send(0, false)
  }

  private send(expiresSec: number, afterChallenge: boolean): void {
    const headers: Header[] = [
      { name: 'Via', value: this.ctx.via(this.remote.transport) },
      { name: 'Max-Forwards', value: '70' },
      { name: 'From', value: `<${this.aor}>;tag=${this.tag}` },
      { name: 'To', value: `<${this.aor}>` },
      { name: 'Call-ID', value: this.callId },
      { name: 'CSeq', value: `${++this.seq} REGISTER` },
      { name: 'Contact', value: this.ctx.contact(this.remote.transport) },
      { name: 'Expires', value: String(expiresSec) },
    ]
    const cred = this.opts.credentials
    if (this.challenge && cred) {
      const c = this.challenge
      headers.push({ name: c.header, value: authorize(c.ch, cred, 'REGISTER', this.opts.registrar, ++c.nc) })
    }
    const req = request('REGISTER', this.opts.registrar, headers)
    this.ctx.request(this.remote, req, (r) => this.onResult(r, expiresSec, afterChallenge))
  }

  private onResult(r: ClientResult, expiresSec: number, afterChallenge: boolean): void {
    if (!('response' in r)) return this.fail(undefined)
    const res = r.response
    if (res.status < 200) return
    if (res.status === 401 || res.status === 407) {
      if (afterChallenge || !this.opts.credentials || !this.takeChallenge(res)) return this.fail(res.status)
      return this.send(expiresSec, true)
    }
    if (res.status >= 300) return this.fail(res.status)
    if (expiresSec === 0) return void this.emit('unregistered')
    const granted = grantedExpires(res, this.ctx.contact(this.remote.transport), expiresSec)
    this.emit('registered', granted)
    if (!this.stopped) this.timer = setTimeout(() => this.send(this.opts.expiresSec ?? 3600, false), (granted * 1000) / 2)
  }

  private takeChallenge(res: SipResponse): boolean {
    const name = res.status === 401 ? 'www-authenticate' : 'proxy-authenticate'
    const all = headerValues(res, name).map(parseChallenge).filter((c) => c !== undefined)
    const ch = all.find((c) => c.algorithm === 'SHA-256') ?? all[0]
    if (!ch) return false
    this.challenge = { ch, header: res.status === 401 ? 'Authorization' : 'Proxy-Authorization', nc: 0 }
    return true
  }

  private fail(status: number | undefined): void {
    this.emit('failed', status)
    // keep trying while the application wants the registration: a trunk may come back
    if (!this.stopped) this.timer = setTimeout(() => this.send(this.opts.expiresSec ?? 3600, false), 30_000)
  }
}

/** The expiry the registrar granted: our Contact's expires parameter, else the Expires header. */
function grantedExpires(res: SipResponse, ourContact: string, asked: number): number {
  const ours = parseNameAddr(ourContact)?.uri
  for (const c of headerValues(res, 'contact')) {
    const na = parseNameAddr(c)
    const e = na?.params.get('expires')
    if (na && na.uri === ours && e) return Number(e)
  }
  const h = header(res, 'expires')
  return h !== undefined && /^\s*\d+\s*$/.test(h) ? Number(h) : asked
}
