// The one address classifier: every spelling the adversarial probe used, and their public neighbours.
import { describe, expect, test } from 'bun:test'
import { checkOutboundUrl, classifyAddress } from '../../../src/platform/net/index.ts'

describe('classifyAddress sees the IPv4 target inside every IPv6 spelling', () => {
  test.each([
    ['::ffff:7f00:1', 'loopback'], // IPv4-mapped, hex
    ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped, dotted
    ['::127.0.0.1', 'loopback'], // IPv4-compatible
    ['::7f00:1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'], // IPv4-translated (SIIT)
    ['::ffff:0:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::7f00:1', 'loopback'], // NAT64 well-known prefix
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b:1::a00:1', 'private'], // NAT64 local-use prefix
    ['2002:7f00:1::', 'loopback'], // 6to4
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:c0a8:101::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // Teredo, client 127.0.0.1 inverted
    ['fd00:ec2::254', 'metadata'],
    ['[fe80::1%eth0]', 'link-local'],
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['ff02::1', 'multicast'],
    ['100::1', 'reserved'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls as never)
  })

  test.each([
    ['192.0.0.170', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
  ])('IPv4 %s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls as never)
  })

  test.each(['2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2001:db9::1', '192.0.1.1', '8.8.8.8'])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBeNull()
  })
})

describe('the save-time URL check uses the same classifier', () => {
  const strict = { allowHttp: false, allowPrivate: false }
  test.each([
    'https://[::ffff:7f00:1]/x',
    'https://[::127.0.0.1]/x',
    'https://[::ffff:0:127.0.0.1]/',
    'https://[2002:7f00:1::]/',
    'https://[64:ff9b::7f00:1]/x',
    'https://[::ffff:a9fe:a9fe]/x',
    'https://192.0.0.170/x',
    'https://[::]/x',
    'https://0.0.0.0/x',
    'https://[ff02::1]/x',
    'https://224.0.0.1/x',
  ])('refuses %s', async (url) => {
    expect(await checkOutboundUrl(url, strict)).toEqual({ ok: false, reason: expect.stringMatching(/^refused: /) })
  })

  test('refuses port 0, even when private targets are allowed', async () => {
    for (const policy of [strict, { allowHttp: true, allowPrivate: true }]) {
      expect(await checkOutboundUrl('https://93.184.216.34:0/x', policy)).toEqual({ ok: false, reason: 'must not use port 0' })
    }
  })
})
