// RFC 3261 section 17 transactions. States and timers carry the RFC's names; the timer base
// values are options so tests can run them fast.
import { canonicalName, header, headerValues, request, serialize, type Header, type SipRequest, type SipResponse } from './message.ts'
import type { Core } from './validate.ts'
import type { Remote } from './transport.ts'

export interface Timers {
  t1: number
  t2: number
  t4: number
  /** Timer D: how long a completed INVITE client transaction absorbs final retransmissions. */
  timerD: number
}

export const DEFAULT_TIMERS: Timers = { t1: 500, t2: 4000, t4: 5000, timerD: 32_000 }

export type TxState = 'calling' | 'trying' | 'proceeding' | 'accepted' | 'completed' | 'confirmed' | 'terminated'

export type SendFn = (to: Remote, bytes: Uint8Array) => void

const MAGIC = 'z9hG4bK'
// one shared no-op: a default per instance would be a closure per transaction
const NOOP = () => {}

/** Server transaction key (RFC 3261 17.2.3, with the RFC 2543 fallback of 17.2.3 end). */
export function serverKey(req: SipRequest, core: Core, methodOverride?: string): string {
  const method = methodOverride ?? (req.method === 'ACK' ? 'INVITE' : req.method)
  const via = core.via
  const branch = via.params.get('branch')
  if (branch && branch.startsWith(MAGIC)) return `${branch}|${via.host}:${via.port ?? ''}|${method}`
  const fromTag = core.from.params.get('tag') ?? ''
  return `2543|${core.callId}|${core.cseq.seq}|${fromTag}|${header(req, 'via')}|${method}`
}

export const clientKey = (branch: string, method: string) => `${branch}|${method === 'ACK' ? 'INVITE' : method}`

abstract class Transaction {
  state: TxState
  private timers = new Map<string, ReturnType<typeof setTimeout>>()
  onTerminated: () => void = NOOP
  /** Sees each response the transaction user hands over (once; retransmissions are not repeated). */
  onRespond: (res: SipResponse) => void = NOOP
  onError: (err: unknown) => void = NOOP

  constructor(
    readonly key: string,
    public remote: Remote,
    protected readonly timers_: Timers,
    protected readonly send: SendFn,
    initial: TxState,
  ) {
    this.state = initial
  }

  get reliable(): boolean {
    return this.remote.transport !== 'udp'
  }

  protected timer(name: string, ms: number, fn: () => void): void {
    this.clear(name)
    this.timers.set(name, setTimeout(() => {
      this.timers.delete(name)
      if (this.state === 'terminated') return
      try {
        fn()
      } catch (err) {
        // a timer callback has no caller to throw to: report it, keep the process alive
        this.onError(err)
      }
    }, ms))
  }

  protected clear(name: string): void {
    const t = this.timers.get(name)
    if (t) clearTimeout(t)
    this.timers.delete(name)
  }

  /**
   * A transaction that only absorbs retransmissions for its last 32 s (Timers L and J) keeps no
   * request and no callbacks: at 1,000 calls/s some 64,000 of them are alive at once.
   */
  protected release(): void {
    this.onRespond = NOOP
    const final = this.onFinal
    this.onFinal = NOOP
    final()
  }

  /** The transaction user sent its final response. */
  onFinal: () => void = NOOP

  terminate(): void {
    if (this.state === 'terminated') return
    this.state = 'terminated'
    for (const t of this.timers.values()) clearTimeout(t)
    this.timers.clear()
    this.onTerminated()
  }
}

/** INVITE server transaction (17.2.1): proceeding -> completed -> confirmed -> terminated. */
export class InviteServerTransaction extends Transaction {
  private last?: Uint8Array
  lastStatus = 0
  /** Timer H fired: the final response was never acknowledged. */
  onNoAck: () => void = NOOP

  /** Until the final response: then only the state is kept. */
  request: SipRequest | undefined

  constructor(key: string, request: SipRequest, remote: Remote, timers: Timers, send: SendFn) {
    super(key, remote, timers, send, 'proceeding')
    this.request = request
  }

  respond(res: SipResponse): void {
    if (this.state !== 'proceeding') return
    this.onRespond(res)
    this.last = serialize(res)
    this.lastStatus = res.status
    this.send(this.remote, this.last)
    if (res.status < 200) return
    if (res.status < 300) {
      // RFC 6026 accepted state: the UAS core repeats the 2xx (13.3.1.4); this transaction only
      // absorbs INVITE retransmissions until Timer L so they do not start a second call
      this.state = 'accepted'
      this.last = undefined
      this.request = undefined
      this.release()
      this.timer('L', 64 * this.timers_.t1, () => this.terminate())
      return
    }
    this.request = undefined
    this.release()
    this.state = 'completed'
    const t = this.timers_
    if (!this.reliable) {
      let interval = t.t1
      const g = () => {
        this.send(this.remote, this.last!)
        interval = Math.min(2 * interval, t.t2)
        this.timer('G', interval, g)
      }
      this.timer('G', interval, g)
    }
    this.timer('H', 64 * t.t1, () => {
      this.onNoAck()
      this.terminate()
    })
  }

  /** A retransmitted INVITE: repeat the last response (17.2.1) to where the copy came from. */
  retransmission(from: Remote): void {
    this.remote = from
    if (this.last && (this.state === 'proceeding' || this.state === 'completed')) this.send(this.remote, this.last)
  }

  ack(): void {
    if (this.state !== 'completed') return
    this.state = 'confirmed'
    this.last = undefined
    this.clear('G')
    this.clear('H')
    if (this.reliable) this.terminate()
    else this.timer('I', this.timers_.t4, () => this.terminate())
  }
}

/** Non-INVITE server transaction (17.2.2): trying -> proceeding -> completed -> terminated. */
export class NonInviteServerTransaction extends Transaction {
  private last?: Uint8Array

  /** Until the final response: then only that response's bytes are kept, for retransmissions. */
  request: SipRequest | undefined

  constructor(key: string, request: SipRequest, remote: Remote, timers: Timers, send: SendFn) {
    super(key, remote, timers, send, 'trying')
    this.request = request
    // a request nobody answers must not hold its entry forever
    this.timer('J0', 64 * timers.t1, () => this.terminate())
  }

  respond(res: SipResponse): void {
    if (this.state === 'completed' || this.state === 'terminated') return
    this.onRespond(res)
    this.last = serialize(res)
    this.send(this.remote, this.last)
    if (res.status < 200) {
      this.state = 'proceeding'
      return
    }
    this.state = 'completed'
    this.request = undefined
    this.release()
    this.clear('J0')
    if (this.reliable) this.terminate()
    else this.timer('J', 64 * this.timers_.t1, () => this.terminate())
  }

  retransmission(from: Remote): void {
    this.remote = from
    if (this.last) this.send(this.remote, this.last)
  }
}

export type ClientResult = { response: SipResponse } | { timeout: true } | { transportError: Error }

/** INVITE (17.1.1) and non-INVITE (17.1.2) client transactions. */
export class ClientTransaction extends Transaction {
  onResult: (r: ClientResult) => void = NOOP
  private readonly bytes: Uint8Array
  readonly isInvite: boolean

  constructor(key: string, readonly request: SipRequest, remote: Remote, timers: Timers, send: SendFn, private readonly makeAck: (res: SipResponse) => SipRequest) {
    super(key, remote, timers, send, request.method === 'INVITE' ? 'calling' : 'trying')
    this.isInvite = request.method === 'INVITE'
    this.bytes = serialize(request)
  }

  start(): void {
    const t = this.timers_
    this.send(this.remote, this.bytes)
    if (!this.reliable) {
      let interval = t.t1
      const retransmit = () => {
        if (!(this.state === 'calling' || this.state === 'trying' || (!this.isInvite && this.state === 'proceeding'))) return
        this.send(this.remote, this.bytes)
        interval = this.isInvite ? 2 * interval : Math.min(2 * interval, t.t2)
        this.timer('A/E', interval, retransmit)
      }
      this.timer('A/E', interval, retransmit)
    }
    this.timer('B/F', 64 * t.t1, () => {
      this.onResult({ timeout: true })
      this.terminate()
    })
  }

  fail(err: Error): void {
    if (this.state === 'terminated') return
    this.onResult({ transportError: err })
    this.terminate()
  }

  receive(res: SipResponse): void {
    const t = this.timers_
    if (this.state === 'completed') {
      if (this.isInvite && res.status >= 300) this.send(this.remote, serialize(this.makeAck(res)))
      return
    }
    if (this.state === 'terminated') return
    if (res.status < 200) {
      if (this.isInvite) this.clear('A/E')
      this.state = 'proceeding'
      this.onResult({ response: res })
      return
    }
    this.clear('A/E')
    this.clear('B/F')
    if (this.isInvite && res.status < 300) {
      this.onResult({ response: res })
      this.terminate()
      return
    }
    if (this.isInvite) this.send(this.remote, serialize(this.makeAck(res)))
    this.state = 'completed'
    this.onResult({ response: res })
    const wait = this.reliable ? 0 : this.isInvite ? t.timerD : t.t4
    if (wait === 0) this.terminate()
    else this.timer('D/K', wait, () => this.terminate())
  }
}

/** ACK for a non-2xx final response (17.1.1.3): same branch, the response's To. */
export function ackFor(invite: SipRequest, res: SipResponse): SipRequest {
  const headers: Header[] = [{ name: 'Via', value: headerValues(invite, 'via')[0]! }]
  for (const h of invite.headers) {
    const n = canonicalName(h.name)
    if (n === 'from' || n === 'call-id' || n === 'route' || n === 'max-forwards') headers.push(h)
  }
  headers.push({ name: 'To', value: header(res, 'to')! })
  headers.push({ name: 'CSeq', value: `${header(invite, 'cseq')!.trim().split(/\s+/)[0]} ACK` })
  return request('ACK', invite.uri, headers)
}
