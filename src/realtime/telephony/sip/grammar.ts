// Header value grammars of RFC 3261 section 25: URIs, name-addr, Via, CSeq, generic params.
// Every parser returns undefined on input the grammar does not allow; callers answer 400.

export type Params = Map<string, string | null>

export interface SipUri {
  scheme: string
  /** Unescaped user part; undefined when the URI has none. */
  user?: string
  password?: string
  host: string
  port?: number
  params: Params
  headers: Params
}

export interface NameAddr {
  displayName?: string
  uri: string
  params: Params
  bracketed: boolean
}

export interface Via {
  protocol: string
  transport: string
  host: string
  port?: number
  params: Params
}

export interface CSeq {
  seq: number
  method: string
}

const TOKEN_RE = /^[A-Za-z0-9\-.!%*_+`'~]+$/
export const isToken = (s: string): boolean => TOKEN_RE.test(s)

const HOST_RE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9\-.]*[A-Za-z0-9.])?)$/

/** RFC 3261 escaped octets; undefined when a % is not followed by two hex digits. */
export function unescape(s: string): string | undefined {
  if (!s.includes('%')) return s
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return undefined
  try {
    return decodeURIComponent(s)
  } catch {
    // Escaped bytes that are not UTF-8 (escnull has %00, others raw octets): keep them byte-wise.
    return s.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
  }
}

/** `;name[=value]` parameters. Empty names are refused (RFC 4475 badinv01). */
export function parseParams(s: string): Params | undefined {
  const params: Params = new Map()
  if (s.trim() === '') return params
  const parts = splitOutsideQuotes(s, ';')
  if (parts[0]!.trim() !== '') return undefined
  for (const raw of parts.slice(1)) {
    const eq = raw.indexOf('=')
    const name = (eq < 0 ? raw : raw.slice(0, eq)).trim()
    if (!isToken(name)) return undefined
    if (eq < 0) {
      params.set(name.toLowerCase(), null)
      continue
    }
    const value = raw.slice(eq + 1).trim()
    if (value.startsWith('"')) {
      const q = readQuoted(value, 0)
      if (!q || q.end !== value.length) return undefined
      params.set(name.toLowerCase(), q.value)
    } else if (/^[A-Za-z0-9\-.!%*_+`'~:[\]]+$/.test(value)) params.set(name.toLowerCase(), value)
    else return undefined
  }
  return params
}

export function formatParams(params: Params): string {
  let out = ''
  for (const [k, v] of params) out += v === null ? `;${k}` : `;${k}=${v}`
  return out
}

/** Reads a quoted-string starting at `start` (which must be a quote). */
export function readQuoted(s: string, start: number): { value: string; end: number } | undefined {
  let value = ''
  let from = start + 1
  for (;;) {
    const q = s.indexOf('"', from)
    const bs = s.indexOf('\\', from)
    if (q < 0) return undefined
    if (bs < 0 || q < bs) return { value: value + s.slice(from, q), end: q + 1 }
    if (bs + 1 >= s.length) return undefined
    value += s.slice(from, bs) + s[bs + 1]
    from = bs + 2
  }
}

function splitOutsideQuotes(s: string, sep: string): string[] {
  if (!s.includes('"')) return s.split(sep)
  const out: string[] = []
  const sepCode = sep.charCodeAt(0)
  let quoted = false
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i)
    if (quoted) {
      if (ch === 92) i++
      else if (ch === 34) quoted = false
    } else if (ch === 34) quoted = true
    else if (ch === sepCode) {
      out.push(s.slice(start, i))
      start = i + 1
    }
  }
  out.push(s.slice(start))
  return out
}

/** A sip: or sips: URI. Other schemes are not parsed here (see `uriScheme`). */
export function parseSipUri(s: string): SipUri | undefined {
  const m = /^(sips?):(.*)$/i.exec(s)
  if (!m || /[\s<>"]/.test(s)) return undefined
  const scheme = m[1]!.toLowerCase()
  let rest = m[2]!
  let user: string | undefined
  let password: string | undefined
  const at = rest.indexOf('@')
  if (at >= 0) {
    const info = rest.slice(0, at)
    rest = rest.slice(at + 1)
    const colon = info.indexOf(':')
    const u = unescape(colon < 0 ? info : info.slice(0, colon))
    if (u === undefined || u === '') return undefined
    user = u
    if (colon >= 0) password = unescape(info.slice(colon + 1))
  }
  let headersPart = ''
  const q = rest.indexOf('?')
  if (q >= 0) {
    headersPart = rest.slice(q + 1)
    rest = rest.slice(0, q)
  }
  const semi = rest.indexOf(';')
  const hostport = semi < 0 ? rest : rest.slice(0, semi)
  const params = parseParams(semi < 0 ? '' : rest.slice(semi))
  if (!params) return undefined
  const hp = parseHostPort(hostport)
  if (!hp) return undefined
  const headers: Params = new Map()
  if (headersPart) {
    for (const pair of headersPart.split('&')) {
      const eq = pair.indexOf('=')
      if (eq <= 0) return undefined
      headers.set(pair.slice(0, eq), unescape(pair.slice(eq + 1)) ?? null)
    }
  }
  return { scheme, user, password, host: hp.host, port: hp.port, params, headers }
}

export function parseHostPort(s: string): { host: string; port?: number } | undefined {
  let host = s
  let port: number | undefined
  const colon = s.lastIndexOf(':')
  if (s.startsWith('[')) {
    const close = s.indexOf(']')
    if (close < 0) return undefined
    host = s.slice(0, close + 1)
    const tail = s.slice(close + 1)
    if (tail) {
      if (!/^:\d{1,5}$/.test(tail)) return undefined
      port = Number(tail.slice(1))
    }
  } else if (colon >= 0) {
    const digits = s.slice(colon + 1)
    if (!/^\d{1,5}$/.test(digits)) return undefined
    host = s.slice(0, colon)
    port = Number(digits)
  }
  if (!HOST_RE.test(host) || (port !== undefined && port > 65535)) return undefined
  return { host: host.toLowerCase(), port }
}

export function formatSipUri(u: SipUri): string {
  const user = u.user === undefined ? '' : escapeUser(u.user) + (u.password ? `:${u.password}` : '') + '@'
  const port = u.port === undefined ? '' : `:${u.port}`
  let out = `${u.scheme}:${user}${u.host}${port}${formatParams(u.params)}`
  if (u.headers.size) out += '?' + [...u.headers].map(([k, v]) => `${k}=${encodeURIComponent(v ?? '')}`).join('&')
  return out
}

/** Escapes a user part: unreserved, user-unreserved and escaped octets only (RFC 3261 25.1). */
export function escapeUser(user: string): string {
  return user.replace(/[^A-Za-z0-9\-_.!~*'()&=+$,;?/]/g, (c) =>
    [...new TextEncoder().encode(c)].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join(''),
  )
}

/** Scheme of any absolute URI, lower-cased; undefined when the string is not one. */
export function uriScheme(s: string): string | undefined {
  const colon = s.indexOf(':')
  if (colon < 1 || colon === s.length - 1 || !SCHEME.test(s.slice(0, colon)) || /[\s<>]/.test(s)) return undefined
  return s.slice(0, colon).toLowerCase()
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+\-.]*$/

/**
 * name-addr or addr-spec with header parameters (From, To, Contact, Route, Refer-To).
 * Refuses unbalanced quotes, LWS inside <>, unquoted display names with non-token characters
 * and bare addr-specs containing `?` or `,` (RFC 4475 quotbal, badaspec, baddn, regbadct).
 */
export function parseNameAddr(value: string): NameAddr | undefined {
  const s = value.trim()
  let i = 0
  let displayName: string | undefined
  if (s.startsWith('"')) {
    const q = readQuoted(s, 0)
    if (!q) return undefined
    displayName = q.value
    i = q.end
    while (s[i] === ' ' || s[i] === '\t') i++
    if (s[i] !== '<') return undefined
  }
  const lt = s.indexOf('<', i)
  if (lt >= 0) {
    if (displayName === undefined) {
      const dn = s.slice(0, lt).trim()
      if (dn !== '') {
        if (!dn.split(/[ \t]+/).every(isToken)) return undefined
        displayName = dn
      }
    }
    const gt = s.indexOf('>', lt)
    if (gt < 0) return undefined
    const uri = s.slice(lt + 1, gt)
    if (uri === '' || /\s/.test(uri) || !uriScheme(uri)) return undefined
    const params = parseParams(s.slice(gt + 1))
    if (!params) return undefined
    return { displayName, uri, params, bracketed: true }
  }
  if (displayName !== undefined) return undefined
  const semi = s.indexOf(';')
  const uri = (semi < 0 ? s : s.slice(0, semi)).trim()
  if (/[?,\s"<>]/.test(uri) || !uriScheme(uri)) return undefined
  const params = parseParams(semi < 0 ? '' : s.slice(semi))
  if (!params) return undefined
  return { uri, params, bracketed: false }
}

export function formatNameAddr(na: NameAddr): string {
  const dn = na.displayName === undefined ? '' : `"${na.displayName.replace(/(["\\])/g, '\\$1')}" `
  return `${dn}<${na.uri}>${formatParams(na.params)}`
}

/** One Via element: `SIP / 2.0 / UDP host[:port] *(;param)`, LWS allowed around the slashes. */
export function parseVia(value: string): Via | undefined {
  const semi = value.indexOf(';')
  const m = VIA_HEAD.exec(semi < 0 ? value : value.slice(0, semi))
  if (!m) return undefined
  const hp = parseHostPort(m[4]!)
  if (!hp) return undefined
  const params = semi < 0 ? new Map() : parseParams(value.slice(semi))
  if (!params) return undefined
  return { protocol: `${m[1]!.toUpperCase()}/${m[2]}`, transport: m[3]!.toUpperCase(), host: hp.host, port: hp.port, params }
}

const T = "[A-Za-z0-9\\-.!%*_+`'~]+"
const VIA_HEAD = new RegExp(`^\\s*(${T})\\s*/\\s*(${T})\\s*/\\s*(${T})\\s+(\\S+)\\s*$`)

export function formatVia(v: Via): string {
  return `${v.protocol}/${v.transport} ${v.host}${v.port === undefined ? '' : `:${v.port}`}${formatParams(v.params)}`
}

const MAX_CSEQ = 2 ** 31 - 1

/** CSeq: a 32-bit sequence number below 2^31 and a method token. */
export function parseCSeq(value: string): CSeq | undefined {
  const m = /^\s*(\d{1,10})\s+([^\s]+)\s*$/.exec(value)
  if (!m || !isToken(m[2]!)) return undefined
  const seq = Number(m[1])
  if (seq > MAX_CSEQ) return undefined
  return { seq, method: m[2]! }
}

/** RFC 1123 date in GMT, as SIP requires (RFC 4475 baddate uses EST). */
export function isSipDate(value: string): boolean {
  return /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(
    value.trim(),
  )
}

/** `type/subtype` of a Content-Type or Accept element, lower-cased, parameters dropped. */
export function mediaType(value: string): string | undefined {
  const m = /^\s*([A-Za-z0-9\-.!%*_+`'~]+)\s*\/\s*([A-Za-z0-9\-.!%*_+`'~]+)\s*(;.*)?$/.exec(value)
  return m ? `${m[1]}/${m[2]}`.toLowerCase() : undefined
}
