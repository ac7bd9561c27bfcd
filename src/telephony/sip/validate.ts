// Header-level checks that make a framed message usable by the transaction layer
// (RFC 3261 sections 8.1.1 and 8.2; the invalid messages of RFC 4475 section 3.1.2).
import {
  isSipDate, isToken, parseCSeq, parseNameAddr, parseSipUri, parseVia, uriScheme,
  type CSeq, type NameAddr, type Via,
} from './grammar.ts'
import { header, headerCount, headerValues, type SipMessage, type SipRequest, type SipResponse } from './message.ts'
import type { Problem } from './parse.ts'

/** The parsed core headers every transaction needs. */
export interface Core {
  vias: Via[]
  from: NameAddr
  to: NameAddr
  callId: string
  cseq: CSeq
}

const SINGLE = ['from', 'to', 'call-id', 'cseq', 'content-length', 'max-forwards', 'content-type']

function core(msg: SipMessage): Core | string {
  for (const name of ['via', 'from', 'to', 'call-id', 'cseq']) {
    if (headerCount(msg, name) === 0) return `missing ${name} header`
  }
  for (const name of SINGLE) if (headerCount(msg, name) > 1) return `more than one ${name} header`
  const vias: Via[] = []
  for (const v of headerValues(msg, 'via')) {
    const via = parseVia(v)
    if (!via) return 'malformed Via header'
    vias.push(via)
  }
  const from = parseNameAddr(header(msg, 'from')!)
  if (!from) return 'malformed From header'
  const to = parseNameAddr(header(msg, 'to')!)
  if (!to) return 'malformed To header'
  const callId = header(msg, 'call-id')!.trim()
  if (callId === '' || /\s/.test(callId)) return 'malformed Call-ID header'
  const cseq = parseCSeq(header(msg, 'cseq')!)
  if (!cseq) return 'malformed CSeq header'
  return { vias, from, to, callId, cseq }
}

export type Checked<T> = { ok: true; core: Core; message: T } | { ok: false; problem: Problem; message: T }

export function checkRequest(req: SipRequest): Checked<SipRequest> {
  const fail = (reason: string, status = 400): Checked<SipRequest> => ({ ok: false, problem: { status, reason }, message: req })
  const c = core(req)
  if (typeof c === 'string') return fail(c)
  if (c.cseq.method !== req.method) return fail('CSeq method does not match the request method')
  const scheme = uriScheme(req.uri)
  if (!scheme) return fail('malformed Request-URI')
  if (scheme === 'sip' || scheme === 'sips') {
    const uri = parseSipUri(req.uri)
    if (!uri) return fail('malformed Request-URI')
    if (uri.headers.size) return fail('headers are not allowed in a Request-URI')
  }
  const mf = header(req, 'max-forwards')
  if (mf !== undefined && !/^\d{1,10}$/.test(mf.trim())) return fail('malformed Max-Forwards header')
  for (const v of headerValues(req, 'contact')) {
    if (v.trim() === '*' && req.method === 'REGISTER') continue
    if (!parseNameAddr(v)) return fail('malformed Contact header')
  }
  for (const name of ['route', 'record-route']) {
    for (const v of headerValues(req, name)) if (!parseNameAddr(v)) return fail(`malformed ${name} header`)
  }
  const date = header(req, 'date')
  if (date !== undefined && !isSipDate(date)) return fail('malformed Date header')
  for (const name of ['require', 'proxy-require', 'supported']) {
    for (const v of headerValues(req, name)) if (v !== '' && !isToken(v)) return fail(`malformed ${name} header`)
  }
  return { ok: true, core: c, message: req }
}

export function checkResponse(res: SipResponse): Checked<SipResponse> {
  const c = core(res)
  if (typeof c === 'string') return { ok: false, problem: { status: 400, reason: c }, message: res }
  return { ok: true, core: c, message: res }
}
