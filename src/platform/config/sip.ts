// The SIP keys a listener or timer would refuse only when SIP starts, long after the database
// was opened: the digest algorithms, timers and connection limits that must be positive, the
// TLS certificate and key (both or neither), and the carrier's source addresses. Pure.
import { isIP } from 'node:net'

export const DIGEST_ALGORITHMS = ['SHA-256', 'MD5'] as const
export type DigestAlgorithmName = (typeof DIGEST_ALGORITHMS)[number]

/** SIP_DIGEST_ALGORITHMS ("SHA-256,MD5", any case) in its order; throws RangeError naming the key. */
export function parseDigestAlgorithms(value: string): DigestAlgorithmName[] {
  const algs = value.split(',').map((a) => a.trim().toUpperCase()).filter((a) => a !== '')
  for (const a of algs) {
    if (!(DIGEST_ALGORITHMS as readonly string[]).includes(a)) throw new RangeError(`SIP_DIGEST_ALGORITHMS: unknown algorithm ${a} (known: ${DIGEST_ALGORITHMS.join(', ')})`)
  }
  if (algs.length === 0) throw new RangeError('SIP_DIGEST_ALGORITHMS must name at least one algorithm')
  return algs as DigestAlgorithmName[]
}

/** Keys of 0 that would refuse every connection or fire every timer at once. */
const AT_LEAST_ONE = ['SIP_T1_MS', 'SIP_MAX_CONNECTIONS', 'SIP_IDLE_TIMEOUT_MS', 'SIP_MESSAGE_TIMEOUT_MS', 'SIP_TLS_HANDSHAKE_TIMEOUT_MS'] as const

export interface SipSettings {
  SIP_DIGEST_ALGORITHMS: string
  SIP_T1_MS: number
  SIP_MAX_CONNECTIONS: number
  SIP_IDLE_TIMEOUT_MS: number
  SIP_MESSAGE_TIMEOUT_MS: number
  SIP_TLS_HANDSHAKE_TIMEOUT_MS: number
  SIP_TLS_CERT_FILE: string
  SIP_TLS_KEY_FILE: string
  CARRIER_SIP_SOURCES: string
}

/** The first problem of the SIP keys, naming its key, or undefined. */
export function sipSettingsProblem(s: SipSettings): string | undefined {
  try {
    parseDigestAlgorithms(s.SIP_DIGEST_ALGORITHMS)
  } catch (err) {
    return (err as Error).message
  }
  for (const key of AT_LEAST_ONE) if (s[key] < 1) return `${key} must be at least 1, got ${s[key]}`
  if (s.SIP_TLS_CERT_FILE && !s.SIP_TLS_KEY_FILE) return 'SIP_TLS_KEY_FILE is empty while SIP_TLS_CERT_FILE is set: TLS needs both (or neither, for no TLS)'
  if (s.SIP_TLS_KEY_FILE && !s.SIP_TLS_CERT_FILE) return 'SIP_TLS_CERT_FILE is empty while SIP_TLS_KEY_FILE is set: TLS needs both (or neither, for no TLS)'
  for (const source of parseCarrierSources(s.CARRIER_SIP_SOURCES)) {
    // a call's source address is compared as it is: a host name or a network would never match
    if (isIP(source) === 0) return `CARRIER_SIP_SOURCES: ${JSON.stringify(source)} is not an IP address`
  }
  return undefined
}

/** CARRIER_SIP_SOURCES: the comma-separated addresses. */
export const parseCarrierSources = (value: string): string[] => value.split(',').map((s) => s.trim()).filter(Boolean)
