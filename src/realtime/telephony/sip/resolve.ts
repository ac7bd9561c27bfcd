// Where an outbound request (a call we place, a registration) goes: a sip:/sips: URI is resolved
// once, and every address it resolves to is checked before anything is sent.
import { lookup } from 'node:dns/promises'
import net from 'node:net'
import { sipAddressProblem, sipUriProblem } from '../../../platform/net/index.ts'
import { parseSipUri } from './grammar.ts'
import { SipError } from './parse.ts'
import type { Remote } from './transport.ts'

/** A target we must not send to (link-local, metadata, multicast, unspecified, maddr); nothing was sent. */
export class TargetRefusedError extends Error {}

const systemResolve = async (host: string) => (await lookup(host, { all: true })).map((a) => a.address)

/**
 * The transport a request to this URI goes over, lower case: its transport parameter, else tls
 * for sips: and udp for sip: (RFC 3263 without NAPTR); undefined when it is not a SIP URI.
 */
export function targetTransport(target: string): string | undefined {
  const uri = parseSipUri(target)
  return uri && (uri.params.get('transport') ?? (uri.scheme === 'sips' ? 'tls' : 'udp')).toLowerCase()
}

/** Where a sip:/sips: URI sends us: transport from its parameter, address by A/AAAA lookup, checked. */
export async function resolveTarget(target: string, resolveHost: (host: string) => Promise<string[]> = systemResolve): Promise<{ remote: Remote; host: string }> {
  const uri = parseSipUri(target)
  if (!uri) throw new SipError(400, `not a SIP URI: ${target}`)
  const t = targetTransport(target)!
  if (t !== 'udp' && t !== 'tcp' && t !== 'tls') throw new SipError(400, `unsupported transport ${t}`)
  const refused = sipUriProblem(uri.host, uri.params.keys())
  if (refused) throw new TargetRefusedError(`${target} refused: ${refused}`)
  const host = uri.host.replace(/^\[|\]$/g, '')
  // resolved once; every address is checked and the request goes to one of them
  const addresses = net.isIP(host) ? [host] : await resolveHost(host)
  if (addresses.length === 0) throw new Error(`${host} does not resolve`)
  for (const a of addresses) {
    const problem = sipAddressProblem(a, host)
    if (problem) throw new TargetRefusedError(`${target} refused: ${problem}`)
  }
  const address = addresses[0] as string
  return { remote: { transport: t, address, port: uri.port ?? (t === 'tls' ? 5061 : 5060) }, host: uri.host }
}
