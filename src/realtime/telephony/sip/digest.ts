// HTTP Digest authentication for SIP (RFC 3261 22, RFC 7616: MD5 and SHA-256, qop=auth).
import { createHash, randomBytes } from 'node:crypto'
import { readQuoted } from './grammar.ts'

export type DigestAlgorithm = 'MD5' | 'SHA-256'

export interface Challenge {
  realm: string
  nonce: string
  algorithm: DigestAlgorithm
  qop?: 'auth'
  opaque?: string
  stale: boolean
}

export interface Credentials {
  username: string
  password: string
}

/** Parses `Digest k=v, k="v"` into a lower-case keyed map; undefined when it is not Digest. */
export function parseAuthParams(value: string): Map<string, string> | undefined {
  const m = /^\s*Digest\s+/i.exec(value)
  if (!m) return undefined
  const out = new Map<string, string>()
  let i = m[0].length
  const s = value
  while (i < s.length) {
    while (s[i] === ' ' || s[i] === ',' || s[i] === '\t') i++
    const eq = s.indexOf('=', i)
    if (eq < 0) break
    const name = s.slice(i, eq).trim().toLowerCase()
    let j = eq + 1
    while (s[j] === ' ') j++
    if (s[j] === '"') {
      const q = readQuoted(s, j)
      if (!q) return undefined
      out.set(name, q.value)
      i = q.end
    } else {
      const comma = s.indexOf(',', j)
      out.set(name, s.slice(j, comma < 0 ? s.length : comma).trim())
      i = comma < 0 ? s.length : comma
    }
  }
  return out
}

/** A challenge we can answer; undefined for unknown algorithms or qop values we do not speak. */
export function parseChallenge(value: string): Challenge | undefined {
  const p = parseAuthParams(value)
  if (!p) return undefined
  const realm = p.get('realm')
  const nonce = p.get('nonce')
  if (realm === undefined || nonce === undefined) return undefined
  const alg = (p.get('algorithm') ?? 'MD5').toUpperCase()
  if (alg !== 'MD5' && alg !== 'SHA-256') return undefined
  const qops = p.get('qop')?.split(',').map((q) => q.trim().toLowerCase())
  if (qops && !qops.includes('auth')) return undefined
  return {
    realm, nonce, algorithm: alg, qop: qops ? 'auth' : undefined, opaque: p.get('opaque'),
    stale: p.get('stale')?.toLowerCase() === 'true',
  }
}

const hash = (alg: DigestAlgorithm, s: string) => createHash(alg === 'MD5' ? 'md5' : 'sha256').update(s).digest('hex')

export interface DigestInput {
  algorithm: DigestAlgorithm
  username: string
  password: string
  realm: string
  nonce: string
  method: string
  uri: string
  qop?: 'auth'
  cnonce?: string
  nc?: string
}

/** The `response` value of RFC 7616 section 3.4.1. */
export function digestResponse(d: DigestInput): string {
  const ha1 = hash(d.algorithm, `${d.username}:${d.realm}:${d.password}`)
  const ha2 = hash(d.algorithm, `${d.method}:${d.uri}`)
  if (d.qop) return hash(d.algorithm, `${ha1}:${d.nonce}:${d.nc}:${d.cnonce}:${d.qop}:${ha2}`)
  return hash(d.algorithm, `${ha1}:${d.nonce}:${ha2}`)
}

const q = (s: string) => `"${s.replace(/(["\\])/g, '\\$1')}"`

/** The Authorization / Proxy-Authorization value answering `ch` for one request. */
export function authorize(ch: Challenge, cred: Credentials, method: string, uri: string, nc = 1): string {
  const cnonce = randomBytes(12).toString('hex')
  const ncHex = nc.toString(16).padStart(8, '0')
  const response = digestResponse({ ...cred, algorithm: ch.algorithm, realm: ch.realm, nonce: ch.nonce, method, uri, qop: ch.qop, cnonce, nc: ncHex })
  let out = `Digest username=${q(cred.username)}, realm=${q(ch.realm)}, nonce=${q(ch.nonce)}, uri=${q(uri)}, response=${q(response)}, algorithm=${ch.algorithm}`
  if (ch.qop) out += `, qop=auth, nc=${ncHex}, cnonce=${q(cnonce)}`
  if (ch.opaque !== undefined) out += `, opaque=${q(ch.opaque)}`
  return out
}

/** Server side: true when an Authorization value answers our nonce with the right password. */
export function verifyAuthorization(value: string, cred: Credentials, method: string, realm: string, nonce: string): boolean {
  const p = parseAuthParams(value)
  if (!p || p.get('username') !== cred.username || p.get('realm') !== realm || p.get('nonce') !== nonce) return false
  const alg = (p.get('algorithm') ?? 'MD5').toUpperCase()
  if (alg !== 'MD5' && alg !== 'SHA-256') return false
  const qop = p.get('qop')
  if (qop !== undefined && qop !== 'auth') return false
  const want = digestResponse({
    algorithm: alg, username: cred.username, password: cred.password, realm, nonce, method, uri: p.get('uri') ?? '',
    qop: qop === 'auth' ? 'auth' : undefined, cnonce: p.get('cnonce'), nc: p.get('nc'),
  })
  return want === p.get('response')
}
