import { isIP } from 'node:net'

/**
 * Why an address must not be the target of a server-side request; null for a public address.
 * documentation: the ranges set aside for examples (RFC 5737, RFC 3849, RFC 9637), never routed
 * on the internet but often found on lab networks; reserved: every other special-purpose range
 * of the IANA registries that is not globally reachable (benchmarking, 240/4, IETF protocol
 * assignments, IPv6 outside 2000::/3).
 */
export type ForbiddenClass = 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'documentation' | 'reserved'

type Range4 = [base: number, bits: number, cls: ForbiddenClass]

const v4 = (s: string): number => s.split('.').reduce((acc, p) => acc * 256 + Number(p), 0)

// Order matters: the metadata addresses sit inside wider ranges and must win.
const RANGES_V4: Range4[] = [
  [v4('169.254.169.254'), 32, 'metadata'],
  [v4('169.254.170.2'), 32, 'metadata'], // AWS ECS task metadata
  [v4('100.100.100.200'), 32, 'metadata'], // Alibaba Cloud
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('100.64.0.0'), 10, 'private'], // carrier-grade NAT
  [v4('169.254.0.0'), 16, 'link-local'],
  [v4('192.0.0.0'), 24, 'reserved'], // IETF protocol assignments, incl. 192.0.0.170 (NAT64 discovery)
  [v4('192.0.2.0'), 24, 'documentation'], // TEST-NET-1
  [v4('198.51.100.0'), 24, 'documentation'], // TEST-NET-2
  [v4('203.0.113.0'), 24, 'documentation'], // TEST-NET-3
  [v4('192.88.99.0'), 24, 'reserved'], // 6to4 relay anycast, deprecated (RFC 7526)
  [v4('198.18.0.0'), 15, 'reserved'], // benchmarking (RFC 2544)
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('240.0.0.0'), 4, 'reserved'], // incl. 255.255.255.255
]

function classifyV4Number(n: number): ForbiddenClass | null {
  for (const [base, bits, cls] of RANGES_V4) if (n >= base && n < base + 2 ** (32 - bits)) return cls
  return null
}

/** Expands an IPv6 address (already validated by isIP) to its 8 groups. */
function groupsV6(ip: string): number[] {
  let s = ip.toLowerCase()
  // A trailing dotted quad (::ffff:1.2.3.4) becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)
  if (dotted) {
    const n = v4(dotted[1] as string)
    s = `${s.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const [head = '', tail] = s.split('::')
  const h = head ? head.split(':') : []
  const t = tail !== undefined && tail !== '' ? tail.split(':') : []
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill('0')
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16))
}

const join32 = (hi: number, lo: number) => hi * 65536 + lo

function classifyV6(ip: string): ForbiddenClass | null {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = groupsV6(ip)
  const low32 = join32(g, h)
  if (a === 0 && b === 0 && c === 0 && d === 0) {
    if (e === 0 && f === 0 && g === 0 && h === 0) return 'unspecified'
    if (e === 0 && f === 0 && g === 0 && h === 1) return 'loopback'
    // IPv4-compatible ::a.b.c.d, IPv4-mapped ::ffff:a.b.c.d and IPv4-translated ::ffff:0:a.b.c.d carry an IPv4 target
    if ((e === 0 && (f === 0 || f === 0xffff)) || (e === 0xffff && f === 0)) return classifyV4Number(low32)
  }
  // NAT64: the well-known prefix 64:ff9b::/96 embeds an IPv4 target; 64:ff9b:1::/48 is for local networks
  if (a === 0x64 && b === 0xff9b) return c === 0 && d === 0 && e === 0 && f === 0 ? classifyV4Number(low32) : c === 1 ? 'private' : 'reserved'
  // 6to4 2002:AABB:CCDD::/48 embeds the IPv4 address AA.BB.CC.DD
  if (a === 0x2002) return classifyV4Number(join32(b, c))
  // Teredo 2001:0::/32 carries the client's IPv4 address inverted in the last 32 bits
  if (a === 0x2001 && b === 0) return classifyV4Number(join32(g ^ 0xffff, h ^ 0xffff))
  if (a === 0x2001 && b === 0x0db8) return 'documentation' // 2001:db8::/32
  if (a === 0x3fff && b < 0x1000) return 'documentation' // 3fff::/20 (RFC 9637)
  if (a === 0x2001 && b < 0x0200) return 'reserved' // rest of 2001::/23: benchmarking 2001:2::/48, ORCHID, anycast assignments
  if (a === 0x100 && b === 0 && c === 0 && d === 0) return 'reserved' // discard-only 100::/64
  if (a === 0xfd00 && b === 0x0ec2 && c === 0 && d === 0 && e === 0 && f === 0 && g === 0 && h === 0x254) return 'metadata' // AWS IMDS over IPv6
  if ((a & 0xfe00) === 0xfc00) return 'private' // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return 'link-local'
  if ((a & 0xffc0) === 0xfec0) return 'private' // deprecated site-local
  if ((a & 0xff00) === 0xff00) return 'multicast'
  // only 2000::/3 is allocated as global unicast; everything else left (5f00::/16 SRv6, the unassigned space) reaches nothing public
  if ((a & 0xe000) !== 0x2000) return 'reserved'
  return null
}

/**
 * Classifies an IP literal (v4 or v6, with or without brackets or a zone). The one classifier of
 * the appliance: URL checks at save time, every outbound HTTP request and SIP trunks use it.
 * Not an IP: throws.
 */
export function classifyAddress(ip: string): ForbiddenClass | null {
  const bracketless = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  const bare = bracketless.split('%')[0] as string
  const family = isIP(bare)
  if (family === 4) return classifyV4Number(v4(bare))
  if (family === 6) return classifyV6(bare)
  throw new Error(`not an IP address: ${ip}`)
}

/** Host names that always mean a cloud metadata service, whatever they resolve to here. */
export const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal'])

/** A host name as the rules compare it: lower case, no trailing dot. */
export const hostKey = (host: string) => host.toLowerCase().replace(/\.$/, '')

/** "a loopback address", "an unspecified address": how messages name a class. */
export const describeClass = (cls: ForbiddenClass) => `${/^[aeiou]/.test(cls) ? 'an' : 'a'} ${cls} address`
