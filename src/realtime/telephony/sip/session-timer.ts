// RFC 4028 session timers: on inbound calls we agree when the caller asks; on outbound calls
// we ask when told to and follow the callee's answer. The refresher sends UPDATE at half the
// interval; the other side ends the call with BYE when a refresh is missing.
import { headerValues, header, type Header, type SipRequest, type SipResponse } from './message.ts'
import { parseParams } from './grammar.ts'

export interface SessionTimerTerms {
  intervalSec: number
  refresher: 'uac' | 'uas'
}

export type SessionTimerAsk = { terms: SessionTimerTerms } | { tooSmall: true; minSec: number } | undefined

/** What an INVITE asks for: nothing, terms we accept, or an interval below our minimum (422). */
export function sessionTimerAsk(req: SipRequest, minSec: number): SessionTimerAsk {
  const se = header(req, 'session-expires')
  if (se === undefined) return undefined
  const m = /^\s*(\d{1,9})\s*(;.*)?$/.exec(se)
  if (!m) return undefined
  const intervalSec = Number(m[1])
  if (intervalSec < minSec) return { tooSmall: true, minSec }
  const supported = headerValues(req, 'supported').concat(headerValues(req, 'require')).some((v) => v.toLowerCase() === 'timer')
  // a caller that cannot refresh leaves the refreshing to us
  const asked = parseParams(m[2] ?? '')?.get('refresher')
  const refresher = !supported ? 'uas' : asked === 'uas' ? 'uas' : 'uac'
  return { terms: { intervalSec, refresher } }
}

/** Headers of the 2xx that agrees to `terms`. */
export function sessionTimerHeaders(terms: SessionTimerTerms, callerSupports: boolean): Header[] {
  const out: Header[] = [{ name: 'Session-Expires', value: `${terms.intervalSec};refresher=${terms.refresher}` }]
  if (callerSupports) out.push({ name: 'Require', value: 'timer' })
  return out
}

/** Runs the agreed timer: `refresh` when we refresh, `expire` when the peer did not. */
export class SessionTimer {
  private t?: ReturnType<typeof setTimeout>

  constructor(
    private readonly terms: SessionTimerTerms,
    /** True when we placed the call (we are the UAC of the session). */
    private readonly weAreUac: boolean,
    private readonly refresh: () => void,
    private readonly expire: () => void,
  ) {}

  get weRefresh(): boolean {
    return (this.terms.refresher === 'uac') === this.weAreUac
  }

  /** (Re)starts the interval: at the agreed time, or after any refresh from either side. */
  start(): void {
    this.stop()
    const ms = this.terms.intervalSec * 1000
    if (this.weRefresh) this.t = setTimeout(() => this.refresh(), ms / 2)
    // RFC 4028 section 10: BYE a little before expiry: min(32 s, a third of the interval)
    else this.t = setTimeout(() => this.expire(), ms - Math.min(32_000, ms / 3))
  }

  stop(): void {
    if (this.t) clearTimeout(this.t)
    this.t = undefined
  }
}

/** The terms a 2xx to our INVITE settled on, if it carries Session-Expires. */
export function sessionTimerAnswer(res: SipResponse, asked: number): SessionTimerTerms | undefined {
  const se = header(res, 'session-expires')
  if (se === undefined) return undefined
  const m = /^\s*(\d{1,9})\s*(;.*)?$/.exec(se)
  const intervalSec = m ? Number(m[1]) : asked
  const refresher = parseParams(m?.[2] ?? '')?.get('refresher') === 'uas' ? 'uas' : 'uac'
  return { intervalSec, refresher }
}
