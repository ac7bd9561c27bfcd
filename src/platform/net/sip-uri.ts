import { isIP } from 'node:net'

export interface SipUri {
  scheme: 'sip' | 'sips'
  user?: string
  host: string
  port?: number
  params: Record<string, string | null>
}

const USER = /^[A-Za-z0-9\-_.!~*'()&=+$,;?/%]+$/
const HOSTNAME = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/
const PARAM = /^[A-Za-z0-9\-_.!~*'()%[\]/:&+$]+$/

/**
 * Parses a SIP or SIPS URI as RFC 3261 section 19.1 writes it (without headers):
 * `sip:user@host:port;param=value`. Returns undefined for anything else. Pure.
 */
export function parseSipUri(raw: string): SipUri | undefined {
  const m = /^(sips?):(.+)$/i.exec(raw.trim())
  if (!m || raw !== raw.trim() || raw.length > 300) return undefined
  const scheme = (m[1] as string).toLowerCase() as 'sip' | 'sips'
  let rest = m[2] as string
  if (rest.includes('?')) return undefined
  let user: string | undefined
  const at = rest.lastIndexOf('@')
  if (at >= 0) {
    user = rest.slice(0, at)
    rest = rest.slice(at + 1)
    if (!user || !USER.test(user)) return undefined
  }
  const [hostport = '', ...paramParts] = rest.split(';')
  let host: string
  let portText: string | undefined
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']')
    if (close < 0) return undefined
    host = hostport.slice(1, close)
    if (isIP(host) !== 6) return undefined
    const after = hostport.slice(close + 1)
    if (after && !after.startsWith(':')) return undefined
    portText = after ? after.slice(1) : undefined
  } else {
    const colon = hostport.indexOf(':')
    host = colon >= 0 ? hostport.slice(0, colon) : hostport
    portText = colon >= 0 ? hostport.slice(colon + 1) : undefined
    if (!(isIP(host) === 4 || (HOSTNAME.test(host) && !/^\d+(\.\d+)*$/.test(host)))) return undefined
  }
  let port: number | undefined
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText)) return undefined
    port = Number(portText)
    if (port < 1 || port > 65535) return undefined
  }
  const params: Record<string, string | null> = {}
  for (const p of paramParts) {
    if (!p) return undefined
    const eq = p.indexOf('=')
    const name = eq >= 0 ? p.slice(0, eq) : p
    const value = eq >= 0 ? p.slice(eq + 1) : null
    if (!PARAM.test(name) || (value !== null && !PARAM.test(value))) return undefined
    params[name.toLowerCase()] = value
  }
  if (params.transport !== undefined && !['udp', 'tcp', 'tls', 'ws', 'wss', 'sctp'].includes(String(params.transport).toLowerCase())) return undefined
  return { scheme, user, host, port, params }
}

export const isSipUri = (raw: string): boolean => parseSipUri(raw) !== undefined
