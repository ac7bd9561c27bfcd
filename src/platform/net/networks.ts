import { BlockList, isIP } from 'node:net'

/**
 * Networks the operator lets outbound requests reach although the address rules refuse them
 * (WEBHOOK_ALLOW_NETWORKS): a receiver on the office LAN, a lab range. Unspecified and multicast
 * addresses stay refused whatever is listed. An IPv4-mapped IPv6 address (::ffff:a.b.c.d)
 * matches the IPv4 networks.
 */
export class NetworkList {
  private readonly list = new BlockList()
  readonly size: number

  constructor(readonly cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const [base = '', bitsText, extra] = cidr.split('/')
      const family = isIP(base)
      const max = family === 4 ? 32 : 128
      const bits = bitsText === undefined ? max : Number(bitsText)
      if (!family || extra !== undefined || !/^\d{1,3}$/.test(bitsText ?? String(max)) || bits > max) {
        throw new RangeError(`not a network: ${cidr} (expected an address or address/prefix, e.g. 10.20.0.0/16 or fd00:1::/64)`)
      }
      this.list.addSubnet(base, bits, family === 4 ? 'ipv4' : 'ipv6')
    }
    this.size = cidrs.length
  }

  /** Whether `ip` (an IP literal, brackets and zone allowed) lies inside one of the networks. */
  has(ip: string): boolean {
    if (this.size === 0) return false
    const bare = (ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip).split('%')[0] as string
    const family = isIP(bare)
    return family !== 0 && this.list.check(bare, family === 4 ? 'ipv4' : 'ipv6')
  }
}

/** Parses a comma-separated list of networks ("10.20.0.0/16, 192.0.2.7"); throws RangeError naming a bad entry. */
export function parseNetworks(list: string): NetworkList {
  return new NetworkList(
    list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
}
