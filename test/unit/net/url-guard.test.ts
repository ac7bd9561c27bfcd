import { describe, expect, test } from 'bun:test'
import { checkOutboundUrl, classifyAddress, type Resolver } from '../../../src/platform/net/index.ts'

const strict = { allowHttp: false, allowPrivate: false }
const fakeDns = (table: Record<string, string[]>): Resolver => async (host) => {
  const found = table[host]
  if (!found) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })
  return found
}

describe('classifyAddress', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.10.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fc00::1', 'private'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls as never)
  })

  test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111'])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBeNull()
  })
})

describe('checkOutboundUrl', () => {
  test('accepts a public https URL and refuses plain http unless allowed', async () => {
    expect((await checkOutboundUrl('https://93.184.216.34/hook', strict)).ok).toBe(true)
    const http = await checkOutboundUrl('http://93.184.216.34/hook', strict)
    expect(http).toEqual({ ok: false, reason: expect.stringContaining('WEBHOOK_ALLOW_HTTP') })
    expect((await checkOutboundUrl('http://93.184.216.34/hook', { ...strict, allowHttp: true })).ok).toBe(true)
  })

  test.each([
    'https://127.0.0.1/x',
    'https://10.0.0.1/x',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/x',
    'https://2130706433/x',
    'https://0x7f.1/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://metadata.google.internal/computeMetadata/v1/',
  ])('refuses %s', async (url) => {
    const v = await checkOutboundUrl(url, strict, fakeDns({}))
    expect(v.ok).toBe(false)
    if (!v.ok) expect(v.reason).toContain('WEBHOOK_ALLOW_PRIVATE')
  })

  test('refuses a host name when any address it resolves to is private', async () => {
    const dns = fakeDns({ 'rebind.example': ['93.184.216.34', '10.1.2.3'], 'ok.example': ['93.184.216.34'] })
    const v = await checkOutboundUrl('https://rebind.example/x', strict, dns)
    expect(v).toEqual({ ok: false, reason: expect.stringContaining('resolves to 10.1.2.3'), resolved: true })
    expect((await checkOutboundUrl('https://ok.example/x', strict, dns)).ok).toBe(true)
  })

  test('localhost is refused through real name resolution', async () => {
    const v = await checkOutboundUrl('https://localhost:8443/x', strict)
    expect(v.ok).toBe(false)
    if (!v.ok) expect(v.reason).toContain('loopback')
  })

  test('a name that does not resolve is refused, and private targets pass when allowed', async () => {
    expect(await checkOutboundUrl('https://nothing.invalid/x', strict, fakeDns({}))).toEqual({ ok: false, reason: 'host nothing.invalid does not resolve', resolved: true })
    // a literal's refusal says nothing of name resolution
    expect(await checkOutboundUrl('https://10.1.2.3/x', strict, fakeDns({}))).toEqual({ ok: false, reason: expect.stringContaining('a private address') })
    expect((await checkOutboundUrl('https://127.0.0.1/x', { allowHttp: false, allowPrivate: true })).ok).toBe(true)
  })

  test('refuses relative URLs, other schemes and credentials in the URL', async () => {
    for (const url of ['/hook', 'ftp://93.184.216.34/x', 'javascript:alert(1)', 'https://user:pw@93.184.216.34/x']) {
      expect((await checkOutboundUrl(url, strict)).ok).toBe(false)
    }
  })
})
