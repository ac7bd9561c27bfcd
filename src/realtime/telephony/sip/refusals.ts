// Refused SIP requests, told to the operator: the first refusal of a source for a reason is
// logged at once, the ones after it are counted and summed up in one line per interval, so a
// scanner or a misconfigured PBX retrying every second costs one line a minute, not a flood.
// Every refusal is counted (onRefused, for /metrics) whether or not it made a line.
import { parseNameAddr, parseSipUri } from './grammar.ts'
import { header, type SipRequest } from './message.ts'
import type { Remote } from './transport.ts'
import type { CallRefusalReason } from '../refusal/index.ts'

/**
 * Why a request was refused; the label values of voice_agent_sip_refused_total. A call refused
 * for a reason of the refusal policy (../refusal) is logged under that reason; the others are
 * the SIP layer's own.
 */
export type RequestRefusal =
  | CallRefusalReason
  /** The source caused too many refusals and is ignored for a while (no answer is sent). */
  | 'rate_limited'
  /** The message could not be used as a request (400 and the like). */
  | 'malformed'
  /** A method, URI scheme, extension or body type we do not take (405, 416, 420, 406, 415). */
  | 'unsupported'
  /** An in-dialog request for no dialog of ours (481). */
  | 'no_dialog'

export interface Refusal {
  reason: RequestRefusal
  /** The status answered; undefined when nothing was sent (rate_limited). */
  status?: number
  /** `address:port` the request came from. */
  source: string
  transport: string
  method: string
  /** The Request-URI's user part as received (unescaped), and the To URI's. */
  requestUser?: string
  toUser?: string
}

export interface InfoLog {
  info(obj: object, msg?: string): void
}

/** The refusal a status answers for when the deciding code names none; undefined: not a refusal. */
export function refusalOfStatus(status: number): RequestRefusal | undefined {
  if (status < 400 || status === 401) return undefined // a 401 is the normal first step of an authenticated call
  if (status === 481) return 'no_dialog'
  if (status === 503) return 'stopping'
  if (status === 480) return 'unavailable'
  if (status === 422) return 'session_interval'
  return [405, 406, 415, 416, 420, 505].includes(status) ? 'unsupported' : 'malformed'
}

/** The user parts of the Request-URI and To, as received; a malformed request may have neither. */
function dialled(req: SipRequest): { requestUser?: string; toUser?: string } {
  const to = header(req, 'to')
  return { requestUser: parseSipUri(req.uri)?.user, toUser: to ? parseSipUri(parseNameAddr(to)?.uri ?? '')?.user : undefined }
}

const MESSAGES: Record<RequestRefusal, string> = {
  unknown_number: 'sip request refused: unknown number',
  not_trunk: 'sip request refused: source is not a trunk of the number',
  bad_digest: 'sip request refused: bad digest credentials',
  rate_limited: 'sip request refused: source rate-limited',
  malformed: 'sip request refused: malformed request',
  unsupported: 'sip request refused: unsupported request',
  no_dialog: 'sip request refused: no such dialog',
  stopping: 'sip request refused: appliance stopping',
  unavailable: 'sip request refused: call could not be offered',
  session_interval: 'sip request refused: session interval too small',
  no_offer: 'sip call refused: no SDP offer',
  media_refused: 'sip call refused: offered media cannot be used',
  starting: 'sip call refused: calls not running yet',
  no_place: 'sip call refused: no RTP port or call worker free',
  web_slots: 'sip call refused: web call slots full',
  web_share: 'sip call refused: workspace holds its web call share',
  workspace_limit: 'sip call refused: workspace at maxConcurrentCalls',
  no_headroom: 'sip call refused: no headroom',
}

/** A user part from the network is logged at most this long. */
const MAX_USER = 64
const cut = (s: string | undefined) => (s === undefined ? undefined : s.length > MAX_USER ? `${s.slice(0, MAX_USER)}…` : s)

export interface RefusalLogOptions {
  /** One summary line per source and reason per this interval (default 60 s). */
  intervalMs?: number
  /** Sources and reasons tracked at once; refusals beyond are summed in one line (default 1000). */
  maxTracked?: number
  onRefused?: (reason: RequestRefusal) => void
  /** The `event` of each line (default sip_refused; call_refused for web calls and media streams). */
  event?: string
}

interface Tracked {
  last: Refusal
  /** Refusals since the last line about this source and reason. */
  count: number
  /** Logged at once since the last flush: kept through that flush even without repeats. */
  fresh: boolean
}

export class RefusalLog {
  private readonly tracked = new Map<string, Tracked>()
  private untracked = 0
  private timer: ReturnType<typeof setInterval> | undefined
  private readonly intervalMs: number
  private readonly maxTracked: number
  private readonly event: string

  constructor(
    private readonly log: InfoLog,
    private readonly opts: RefusalLogOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 60_000
    this.maxTracked = opts.maxTracked ?? 1000
    this.event = opts.event ?? 'sip_refused'
  }

  /** A request answered with `status` (none: dropped); `reason` when the deciding code knows more than the status says. */
  request(req: SipRequest, remote: Remote, status: number | undefined, reason = status === undefined ? undefined : refusalOfStatus(status)): void {
    if (!reason || req.method === 'ACK') return
    const source = remote.address.includes(':') ? `[${remote.address}]:${remote.port}` : `${remote.address}:${remote.port}`
    this.refused({ reason, status, source, transport: remote.transport, method: req.method, ...dialled(req) })
  }

  refused(r: Refusal): void {
    this.opts.onRefused?.(r.reason)
    const line = { ...r, requestUser: cut(r.requestUser), toUser: cut(r.toUser) }
    // the source is its address: a PBX uses many ports, and one line per port would be a flood
    const key = `${r.source.replace(/:\d+$/, '')} ${r.reason}`
    const seen = this.tracked.get(key)
    if (seen) {
      seen.count++
      seen.last = line
      return
    }
    if (this.tracked.size >= this.maxTracked) {
      this.untracked++
      return
    }
    this.tracked.set(key, { last: line, count: 0, fresh: true })
    this.log.info({ event: this.event, ...line }, MESSAGES[r.reason])
    this.timer ??= setInterval(() => this.flush(), this.intervalMs)
    this.timer.unref?.()
  }

  /**
   * Writes one summary line per source and reason refused again since its last line; a source
   * and reason quiet for a whole interval is forgotten, so its next refusal is logged at once.
   */
  flush(): void {
    for (const [key, t] of this.tracked) {
      if (t.count === 0) {
        if (!t.fresh) this.tracked.delete(key)
        t.fresh = false
        continue
      }
      this.log.info({ event: this.event, ...t.last, count: t.count, intervalSec: this.intervalMs / 1000 }, `${MESSAGES[t.last.reason]} (repeated)`)
      t.count = 0
      t.fresh = false
    }
    if (this.untracked) {
      this.log.info({ event: this.event, count: this.untracked, intervalSec: this.intervalMs / 1000 }, 'sip requests refused from further sources (too many to track)')
      this.untracked = 0
    }
    if (this.tracked.size === 0) this.stop()
  }

  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }
}
