import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { classifyAddress, type ForbiddenClass, METADATA_HOSTNAMES } from './address-class.ts'

export interface UrlPolicy {
  /** Allow plain http:// (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean
  /** Allow loopback, private, link-local and metadata targets (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
}

/** Resolves a host name to its addresses; injectable so the rules can be tested without DNS. */
export type Resolver = (host: string) => Promise<string[]>

export const dnsResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string }

const RESOLVE_TIMEOUT_MS = 3000

/**
 * Decides whether the appliance may send requests to `raw` (agent webhooks, http_request
 * tools). Host names are resolved and every address is checked, so a name pointing at
 * 127.0.0.1 is refused like the literal. Senders check again at send time (DNS can change).
 */
export async function checkOutboundUrl(raw: string, policy: UrlPolicy, resolve: Resolver = dnsResolver): Promise<UrlVerdict> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: 'must be an absolute URL such as https://example.com/hook' }
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return { ok: false, reason: policy.allowHttp ? 'must use https or http' : 'must use https (http is allowed only with WEBHOOK_ALLOW_HTTP=true)' }
  }
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials in the URL' }
  if (policy.allowPrivate) return { ok: true, url }
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const refuse = (cls: ForbiddenClass, addr?: string) => ({
    ok: false as const,
    reason: `refused: ${addr && addr !== host ? `${host} resolves to ${addr}, ` : ''}a ${cls} address (allowed only with WEBHOOK_ALLOW_PRIVATE=true)`,
  })
  const name = host.toLowerCase().replace(/\.$/, '')
  if (METADATA_HOSTNAMES.has(name)) return refuse('metadata')
  if (isIP(host)) {
    const cls = classifyAddress(host)
    return cls ? refuse(cls) : { ok: true, url }
  }
  let addresses: string[]
  try {
    addresses = await withTimeout(resolve(host), RESOLVE_TIMEOUT_MS)
  } catch {
    return { ok: false, reason: `host ${host} does not resolve` }
  }
  if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve` }
  for (const addr of addresses) {
    const cls = classifyAddress(addr)
    if (cls) return refuse(cls, addr)
  }
  return { ok: true, url }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}
