// Issue 24, finding 5: the documentation and benchmarking ranges (and the rest of the IANA
// special-purpose registries) are classified, so a webhook URL such as https://192.0.2.2/ (on the
// probe's machine, the host's own address) is refused unless the operator allows it.
import { describe, expect, test } from 'bun:test'
import { networkInterfaces } from 'node:os'
import { checkOutboundUrl, classifyAddress, isOwnAddress, parseNetworks, resolveTarget } from '../../../src/platform/net/index.ts'
import { sipAddressProblem } from '../../../src/platform/net/index.ts'

const strict = { allowHttp: false, allowPrivate: false }

describe('special-purpose ranges of the IANA registries', () => {
  test.each([
    ['192.0.2.2', 'documentation'], // TEST-NET-1, the probe's address
    ['198.51.100.7', 'documentation'], // TEST-NET-2
    ['203.0.113.9', 'documentation'], // TEST-NET-3
    ['2001:db8::1', 'documentation'],
    ['[2001:db8:ffff::2]', 'documentation'],
    ['3fff::1', 'documentation'], // RFC 9637
    ['::ffff:192.0.2.2', 'documentation'], // mapped
    ['64:ff9b::c000:202', 'documentation'], // NAT64 of 192.0.2.2
    ['2002:c000:202::1', 'documentation'], // 6to4 of 192.0.2.2
    ['198.18.0.1', 'reserved'], // benchmarking 198.18.0.0/15
    ['198.19.255.254', 'reserved'],
    ['192.88.99.1', 'reserved'], // 6to4 relay anycast
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.9', 'reserved'],
    ['100.64.0.1', 'private'], // shared address space
    ['0.0.0.0', 'unspecified'],
    ['2001:2::1', 'reserved'], // IPv6 benchmarking
    ['2001:10::1', 'reserved'], // ORCHID
    ['2001:20::1', 'reserved'], // ORCHIDv2
    ['5f00::1', 'reserved'], // SRv6 SIDs
    ['4000::1', 'reserved'], // outside 2000::/3
    ['64:ff9b:2::1', 'reserved'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link-local'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls as never)
  })

  test.each(['192.0.1.255', '192.0.3.0', '198.51.99.255', '198.51.101.0', '203.0.112.255', '203.0.114.0', '198.17.255.255', '198.20.0.0', '2001:db9::1', '2001:200::1', '3fff:1000::1', '2606:4700::1111'])(
    'its neighbour %s is public',
    (ip) => {
      expect(classifyAddress(ip)).toBeNull()
    },
  )

  test("SIP keeps accepting documentation addresses (lab PBXs), and still refuses reserved ones", () => {
    expect(sipAddressProblem('192.0.2.10')).toBeUndefined()
    expect(sipAddressProblem('198.18.0.1')).toContain('reserved')
  })
})

describe('webhook URLs in those ranges', () => {
  test("the probe's https://192.0.2.2/ is refused by default", async () => {
    expect(await checkOutboundUrl('https://192.0.2.2/', strict)).toEqual({ ok: false, reason: expect.stringContaining('a documentation address') })
  })

  test.each(['https://198.51.100.1/hook', 'https://203.0.113.5/', 'https://198.18.0.10/', 'https://[2001:db8::2]/', 'https://240.1.2.3/'])('refuses %s', async (url) => {
    expect(await checkOutboundUrl(url, strict)).toEqual({ ok: false, reason: expect.stringMatching(/^refused: /) })
  })

  test('a name resolving to a documentation address is refused like the literal', async () => {
    const verdict = await checkOutboundUrl('https://hooks.example.test/', strict, async () => ['192.0.2.2'])
    expect(verdict).toMatchObject({ ok: false, resolved: true, reason: expect.stringContaining('resolves to 192.0.2.2, a documentation address') })
  })

  test('WEBHOOK_ALLOW_NETWORKS opens only the listed networks, never multicast or unspecified', async () => {
    const policy = { ...strict, allowNetworks: parseNetworks('192.0.2.0/24, 10.20.0.0/16') }
    expect((await checkOutboundUrl('https://192.0.2.2/', policy)).ok).toBe(true)
    expect((await checkOutboundUrl('https://10.20.3.4/', policy)).ok).toBe(true)
    expect((await checkOutboundUrl('https://[::ffff:192.0.2.2]/', policy)).ok).toBe(true)
    expect((await checkOutboundUrl('https://198.51.100.1/', policy)).ok).toBe(false)
    expect((await checkOutboundUrl('https://10.21.0.1/', policy)).ok).toBe(false)
    const wide = { ...strict, allowNetworks: parseNetworks('224.0.0.0/4, 0.0.0.0/8') }
    expect((await checkOutboundUrl('https://224.0.0.1/', wide)).ok).toBe(false)
    expect((await checkOutboundUrl('https://0.0.0.0/', wide)).ok).toBe(false)
  })

  test('a bad network in the list is named', () => {
    expect(() => parseNetworks('10.0.0.0/8, 192.0.2.0/33')).toThrow('not a network: 192.0.2.0/33')
    expect(() => parseNetworks('intranet')).toThrow('not a network: intranet')
    expect(parseNetworks('').size).toBe(0)
  })
})

describe("this host's own addresses", () => {
  const own = Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((a) => a.address))

  test('every interface address counts as the host itself; a public address elsewhere does not', () => {
    expect(own.length).toBeGreaterThan(0)
    for (const ip of own) expect(isOwnAddress(ip)).toBe(true)
    expect(isOwnAddress('::ffff:127.0.0.1')).toBe(true)
    expect(isOwnAddress('93.184.216.34')).toBe(own.includes('93.184.216.34'))
  })

  test('a URL resolving to one of them is refused unless allowed, whatever its range', async () => {
    // a name so that the check reaches the interface test even for a public address of the host
    for (const ip of own) {
      const verdict = await resolveTarget('https://self.example.test/', strict, async () => [ip])
      expect(verdict.ok).toBe(false)
    }
    const allowed = await resolveTarget('https://self.example.test/', { ...strict, allowPrivate: true }, async () => [own[0]!])
    expect(allowed.ok).toBe(true)
  })
})
