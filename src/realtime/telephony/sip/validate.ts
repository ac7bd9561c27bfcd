// Header-level checks that make a framed message usable by the transaction layer
// (RFC 3261 sections 8.1.1 and 8.2; the invalid messages of RFC 4475 section 3.1.2).
// One pass over the headers: this runs for every message received.
import {
  isSipDate, isToken, mediaType, parseCSeq, parseNameAddr, parseSipUri, parseVia, uriScheme,
  type CSeq, type NameAddr, type Via,
} from './grammar.ts'
import { canonicalName, header, headerValues, splitList, type SipMessage, type SipRequest, type SipResponse } from './message.ts'
import { SipError, type Problem } from './parse.ts'

/** The parsed core headers every transaction needs. */
export interface Core {
  /** The top Via: the only one a user agent acts on (the rest are kept as text). */
  via: Via
  from: NameAddr
  to: NameAddr
  callId: string
  cseq: CSeq
}

const SINGLE = new Set(['from', 'to', 'call-id', 'cseq', 'content-length', 'max-forwards', 'content-type'])

function scan(msg: SipMessage, isRequest: boolean): Core | string {
  let via: Via | undefined
  const seen = new Set<string>()
  let from: string | undefined
  let to: string | undefined
  let callId: string | undefined
  let cseq: string | undefined
  for (const h of msg.headers) {
    const name = canonicalName(h.name)
    if (SINGLE.has(name)) {
      if (seen.has(name)) return `more than one ${name} header`
      seen.add(name)
    }
    switch (name) {
      case 'via':
        if (via === undefined) {
          via = parseVia(splitList(h.value)[0]!)
          if (!via) return 'malformed Via header'
        }
        break
      case 'from':
        from = h.value
        break
      case 'to':
        to = h.value
        break
      case 'call-id':
        callId = h.value.trim()
        break
      case 'cseq':
        cseq = h.value
        break
      case 'max-forwards':
        if (isRequest && !/^\s*\d{1,10}\s*$/.test(h.value)) return 'malformed Max-Forwards header'
        break
      case 'contact':
        if (!isRequest) break
        for (const v of splitList(h.value)) {
          if (v === '*' && (msg as SipRequest).method === 'REGISTER') continue
          if (!parseNameAddr(v)) return 'malformed Contact header'
        }
        break
      case 'route':
      case 'record-route':
        if (!isRequest) break
        for (const v of splitList(h.value)) if (!parseNameAddr(v)) return `malformed ${name} header`
        break
      case 'date':
        if (isRequest && !isSipDate(h.value)) return 'malformed Date header'
        break
      case 'require':
      case 'proxy-require':
      case 'supported':
        if (!isRequest) break
        for (const v of splitList(h.value)) if (v !== '' && !isToken(v)) return `malformed ${name} header`
        break
    }
  }
  if (via === undefined) return 'missing via header'
  if (from === undefined) return 'missing from header'
  if (to === undefined) return 'missing to header'
  if (callId === undefined) return 'missing call-id header'
  if (cseq === undefined) return 'missing cseq header'
  const fromNa = parseNameAddr(from)
  if (!fromNa) return 'malformed From header'
  const toNa = parseNameAddr(to)
  if (!toNa) return 'malformed To header'
  if (callId === '' || /\s/.test(callId)) return 'malformed Call-ID header'
  const cs = parseCSeq(cseq)
  if (!cs) return 'malformed CSeq header'
  return { via, from: fromNa, to: toNa, callId, cseq: cs }
}

export type Checked<T> = { ok: true; core: Core; message: T } | { ok: false; problem: Problem; message: T }

export function checkRequest(req: SipRequest): Checked<SipRequest> {
  const fail = (reason: string, status = 400): Checked<SipRequest> => ({ ok: false, problem: new SipError(status, reason), message: req })
  const c = scan(req, true)
  if (typeof c === 'string') return fail(c)
  if (c.cseq.method !== req.method) return fail('CSeq method does not match the request method')
  const scheme = uriScheme(req.uri)
  if (!scheme) return fail('malformed Request-URI')
  if (scheme === 'sip' || scheme === 'sips') {
    const uri = parseSipUri(req.uri)
    if (!uri) return fail('malformed Request-URI')
    if (uri.headers.size) return fail('headers are not allowed in a Request-URI')
  }
  return { ok: true, core: c, message: req }
}

export function checkResponse(res: SipResponse): Checked<SipResponse> {
  const c = scan(res, false)
  if (typeof c === 'string') return { ok: false, problem: new SipError(400, c), message: res }
  return { ok: true, core: c, message: res }
}

/** An INVITE whose Accept, body type or encoding we cannot take: the status and the headers that say what we take. */
export function inviteContentProblem(req: SipRequest): { status: number; headers: { name: string; value: string }[] } | undefined {
  const accept = headerValues(req, 'accept').map((a) => mediaType(a) ?? a.trim())
  if (accept.length && !accept.some((a) => a === 'application/sdp' || a === '*/*' || a === 'application/*')) return { status: 406, headers: [] }
  if (req.body.length && mediaType(header(req, 'content-type') ?? '') !== 'application/sdp') return { status: 415, headers: [{ name: 'Accept', value: 'application/sdp' }] }
  const enc = headerValues(req, 'content-encoding').filter((e) => e.toLowerCase() !== 'identity')
  if (enc.length) return { status: 415, headers: [{ name: 'Accept-Encoding', value: 'identity' }] }
  return undefined
}
