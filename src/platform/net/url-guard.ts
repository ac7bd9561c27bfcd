import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { classifyAddress, describeClass, type ForbiddenClass, hostKey, METADATA_HOSTNAMES } from './address-class.ts'
import type { NetworkList } from './networks.ts'
import { isOwnAddress } from './own-addresses.ts'

export interface UrlPolicy {
  /** Allow plain http:// (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean
  /** Allow loopback, private, link-local, metadata, documentation and reserved targets (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
  /** Networks allowed although their class is refused (WEBHOOK_ALLOW_NETWORKS); unspecified and multicast stay refused. */
  allowNetworks?: NetworkList
}

/** Resolves a host name to its addresses; injectable so the rules can be tested without DNS. */
export type Resolver = (host: string) => Promise<string[]>

export const dnsResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)

/** `resolved`: the refusal came from what the host name resolved to (or that it did not), which tells about this network. */
export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string; resolved?: true }
/** A target that passed the rules, with every address its host resolved to (all of them checked). */
export type TargetVerdict = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string; resolved?: true }

const RESOLVE_TIMEOUT_MS = 3000
/** Never a server, whatever the operator allows. */
const NEVER = new Set<ForbiddenClass>(['unspecified', 'multicast'])

function checkShape(raw: string | URL, policy: UrlPolicy): TargetVerdict | URL {
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
  if (url.port === '0') return { ok: false, reason: 'must not use port 0' }
  return url
}

/**
 * Decides whether the appliance may send requests to `raw` (agent webhooks, http_request
 * tools) when it is saved. Host names are resolved and every address is checked, so a name
 * pointing at 127.0.0.1 is refused like the literal. Senders go through guardedFetch, which
 * checks again and connects to the address it checked.
 */
export async function checkOutboundUrl(raw: string, policy: UrlPolicy, resolve: Resolver = dnsResolver): Promise<UrlVerdict> {
  const shaped = checkShape(raw, policy)
  if (!(shaped instanceof URL)) return shaped
  if (policy.allowPrivate) return { ok: true, url: shaped }
  const verdict = await resolveTarget(shaped, policy, resolve)
  return verdict.ok ? { ok: true, url: verdict.url } : verdict
}

/** The rules of checkOutboundUrl, resolving the host once; with allowPrivate only the shape is checked. */
export async function resolveTarget(raw: string | URL, policy: UrlPolicy, resolve: Resolver = dnsResolver): Promise<TargetVerdict> {
  const shaped = checkShape(raw, policy)
  if (!(shaped instanceof URL)) return shaped
  const url = shaped
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const refuse = (cls: ForbiddenClass | 'own', addr?: string) => ({
    ok: false as const,
    ...(addr && addr !== host ? { resolved: true as const } : {}),
    reason:
      `refused: ${addr && addr !== host ? `${host} resolves to ${addr}, ` : ''}${cls === 'own' ? 'an address of this host' : describeClass(cls)}` +
      (cls !== 'own' && NEVER.has(cls) ? '' : ' (allowed only with WEBHOOK_ALLOW_PRIVATE=true or in WEBHOOK_ALLOW_NETWORKS)'),
  })
  if (!policy.allowPrivate && METADATA_HOSTNAMES.has(hostKey(host))) return refuse('metadata')
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try {
      addresses = await withTimeout(resolve(host), RESOLVE_TIMEOUT_MS)
    } catch {
      return { ok: false, reason: `host ${host} does not resolve`, resolved: true }
    }
    if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve`, resolved: true }
  }
  for (const addr of addresses) {
    if (!isIP(addr)) return { ok: false, reason: `host ${host} resolves to something that is not an address`, resolved: true }
    // an address of one of this host's interfaces reaches its own services like loopback does
    const cls = classifyAddress(addr) ?? (isOwnAddress(addr) ? 'own' : null)
    if (!cls) continue
    if (cls !== 'own' && NEVER.has(cls)) return refuse(cls, addr)
    if (!policy.allowPrivate && !policy.allowNetworks?.has(addr)) return refuse(cls, addr)
  }
  return { ok: true, url, addresses }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}
