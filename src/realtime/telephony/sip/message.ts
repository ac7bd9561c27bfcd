// SIP message model and serializer (RFC 3261 section 7). Headers keep the name and value as
// received so that parse then serialize gives the bytes back for canonical messages.

export interface Header {
  name: string
  value: string
}

interface Common {
  version: string
  headers: Header[]
  body: Uint8Array
}

export interface SipRequest extends Common {
  kind: 'request'
  method: string
  uri: string
}

export interface SipResponse extends Common {
  kind: 'response'
  status: number
  reason: string
}

export type SipMessage = SipRequest | SipResponse

/** RFC 3261 section 7.3.3 compact forms, plus RFC 3515/3891/4028 ones in common use. */
const COMPACT = new Map<string, string>(Object.entries({
  i: 'call-id', m: 'contact', e: 'content-encoding', l: 'content-length', c: 'content-type',
  f: 'from', s: 'subject', k: 'supported', t: 'to', v: 'via', r: 'refer-to', b: 'referred-by',
  o: 'event', x: 'session-expires', u: 'allow-events', a: 'accept-contact', j: 'reject-contact',
  d: 'request-disposition', y: 'identity', n: 'identity-info',
}))

// names repeat in every message: remember the canonical form of short ones (bounded: fuzzers send
// endless distinct and enormous names)
const seen = new Map<string, string>()

/** Lower-case long form of a header name. */
export function canonicalName(name: string): string {
  const hit = seen.get(name)
  if (hit !== undefined) return hit
  const lower = name.toLowerCase()
  const out = COMPACT.get(lower) ?? lower
  if (name.length <= 32) {
    if (seen.size >= 500) seen.clear()
    seen.set(name, out)
  }
  return out
}

/** Headers whose value is a comma-separated list (RFC 3261 section 7.3.1). */
const LIST_HEADERS = new Set([
  'via', 'contact', 'route', 'record-route', 'allow', 'supported', 'require', 'proxy-require',
  'unsupported', 'accept', 'accept-encoding', 'accept-language', 'content-encoding',
  'content-language', 'allow-events', 'in-reply-to', 'alert-info', 'call-info', 'error-info',
  'warning', 'path', 'service-route',
])

export const isListHeader = (canonical: string): boolean => LIST_HEADERS.has(canonical)

/** Splits a header value at commas that are outside quoted strings and angle brackets. */
export function splitList(value: string): string[] {
  if (!value.includes(',')) return [value.trim()]
  const out: string[] = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]
    if (quoted) {
      if (ch === '\\') i++
      else if (ch === '"') quoted = false
    } else if (ch === '"') quoted = true
    else if (ch === '<') depth++
    else if (ch === '>') depth = Math.max(0, depth - 1)
    else if (ch === ',' && depth === 0) {
      out.push(value.slice(start, i).trim())
      start = i + 1
    }
  }
  out.push(value.slice(start).trim())
  return out
}

/** Every value of a header, list headers split into their elements, in message order. */
export function headerValues(msg: SipMessage, name: string): string[] {
  const want = canonicalName(name)
  const out: string[] = []
  for (const h of msg.headers) {
    if (canonicalName(h.name) !== want) continue
    if (LIST_HEADERS.has(want)) for (const v of splitList(h.value)) out.push(v)
    else out.push(h.value)
  }
  return out
}

/** The first value of a header (the first list element for list headers). */
export function header(msg: SipMessage, name: string): string | undefined {
  const want = canonicalName(name)
  for (const h of msg.headers) {
    if (canonicalName(h.name) !== want) continue
    return LIST_HEADERS.has(want) ? splitList(h.value)[0] : h.value
  }
  return undefined
}

export function headerCount(msg: SipMessage, name: string): number {
  const want = canonicalName(name)
  let n = 0
  for (const h of msg.headers) if (canonicalName(h.name) === want) n++
  return n
}

export function setHeader(msg: SipMessage, name: string, value: string): void {
  removeHeader(msg, name)
  msg.headers.push({ name, value })
}

export function removeHeader(msg: SipMessage, name: string): void {
  const want = canonicalName(name)
  msg.headers = msg.headers.filter((h) => canonicalName(h.name) !== want)
}

const encoder = new TextEncoder()
export const utf8 = (s: string): Uint8Array => encoder.encode(s)
const decoder = new TextDecoder()
export const text = (b: Uint8Array): string => decoder.decode(b)

/** Writes a message. Content-Length is rewritten to the body's real length. */
export function serialize(msg: SipMessage): Uint8Array {
  const start =
    msg.kind === 'request' ? `${msg.method} ${msg.uri} ${msg.version}` : `${msg.version} ${msg.status} ${msg.reason}`
  let head = start + '\r\n'
  let sawLength = false
  for (const h of msg.headers) {
    if (canonicalName(h.name) === 'content-length') {
      if (sawLength) continue
      sawLength = true
      head += `${h.name}: ${msg.body.length}\r\n`
    } else head += `${h.name}: ${h.value}\r\n`
  }
  if (!sawLength) head += `Content-Length: ${msg.body.length}\r\n`
  head += '\r\n'
  const headBytes = utf8(head)
  if (msg.body.length === 0) return headBytes
  const out = new Uint8Array(headBytes.length + msg.body.length)
  out.set(headBytes)
  out.set(msg.body, headBytes.length)
  return out
}

export function request(method: string, uri: string, headers: Header[], body: Uint8Array | string = ''): SipRequest {
  return { kind: 'request', method, uri, version: 'SIP/2.0', headers, body: typeof body === 'string' ? utf8(body) : body }
}

export function response(status: number, reason: string, headers: Header[], body: Uint8Array | string = ''): SipResponse {
  return { kind: 'response', status, reason, version: 'SIP/2.0', headers, body: typeof body === 'string' ? utf8(body) : body }
}

export const REASONS: Record<number, string> = {
  100: 'Trying', 180: 'Ringing', 183: 'Session Progress', 200: 'OK', 202: 'Accepted',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  406: 'Not Acceptable', 407: 'Proxy Authentication Required', 408: 'Request Timeout',
  413: 'Request Entity Too Large', 415: 'Unsupported Media Type', 416: 'Unsupported URI Scheme',
  420: 'Bad Extension', 422: 'Session Interval Too Small', 480: 'Temporarily Unavailable', 481: 'Call/Transaction Does Not Exist',
  482: 'Loop Detected', 483: 'Too Many Hops', 486: 'Busy Here', 487: 'Request Terminated',
  488: 'Not Acceptable Here', 489: 'Bad Event', 491: 'Request Pending', 500: 'Server Internal Error',
  501: 'Not Implemented', 503: 'Service Unavailable', 505: 'Version Not Supported', 603: 'Decline',
}

export const reasonFor = (status: number): string => REASONS[status] ?? (status < 300 ? 'OK' : 'Error')
