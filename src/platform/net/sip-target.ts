import { isIP } from 'node:net'
import { classifyAddress, describeClass, type ForbiddenClass, hostKey, METADATA_HOSTNAMES } from './address-class.ts'

// A PBX on the same host or LAN is the normal case for a trunk, so SIP allows what HTTP refuses
// by default (lab networks numbered from the documentation ranges too); link-local, metadata,
// multicast, unspecified and reserved addresses stay refused.
const ALLOWED = new Set<ForbiddenClass>(['loopback', 'private', 'documentation'])

/** The class that forbids sending SIP to this IP address; undefined when the appliance may. */
export function sipForbiddenClass(address: string): ForbiddenClass | undefined {
  const cls = classifyAddress(address)
  return cls && !ALLOWED.has(cls) ? cls : undefined
}

/** Why the appliance must not send SIP to `address` (reached through `host`, if a name); undefined when it may. */
export function sipAddressProblem(address: string, host = address): string | undefined {
  const cls = sipForbiddenClass(address)
  if (!cls) return undefined
  return `${host === address ? address : `${host} resolves to ${address}`}, ${describeClass(cls)}; SIP targets may be public, private or loopback`
}

/**
 * What can be told from a SIP URI alone, before it is saved or dialled: no `maddr` parameter
 * (it would send the request elsewhere), and a literal or well-known metadata host that is
 * allowed. Host names are resolved and checked again when the appliance dials or registers.
 */
export function sipUriProblem(host: string, paramNames: Iterable<string>): string | undefined {
  for (const p of paramNames) if (p.toLowerCase() === 'maddr') return 'must not carry a maddr parameter'
  const bare = host.replace(/^\[|\]$/g, '')
  if (isIP(bare)) return sipAddressProblem(bare)
  if (METADATA_HOSTNAMES.has(hostKey(bare))) return `${bare} is a cloud metadata host`
  return undefined
}
