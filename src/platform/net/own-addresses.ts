import { networkInterfaces } from 'node:os'

// Interfaces change rarely (DHCP, a VPN coming up); reading them on every request is not needed.
const REFRESH_MS = 5000
let cached: { at: number; addresses: Set<string> } | undefined

function normalise(ip: string): string {
  const bare = (ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip).split('%')[0] as string
  const lower = bare.toLowerCase()
  // ::ffff:a.b.c.d reaches the IPv4 address a.b.c.d
  return lower.startsWith('::ffff:') && lower.includes('.') ? lower.slice(7) : lower
}

/**
 * Whether `ip` is assigned to one of this machine's network interfaces. A request to such an
 * address reaches the appliance's own services (and whatever else listens on the host) exactly
 * as loopback does, whatever range the address is from: a public address of the host, or a
 * documentation address a lab numbered it from.
 */
export function isOwnAddress(ip: string, now = Date.now()): boolean {
  if (!cached || now - cached.at > REFRESH_MS) {
    const addresses = new Set<string>()
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) addresses.add(normalise(a.address))
    cached = { at: now, addresses }
  }
  return cached.addresses.has(normalise(ip))
}
