// What the SIP connection limits count as one source, and the configuration they are read from.
import { expect, test } from 'bun:test'
import { loadConfig } from '../../../../src/platform/config/index.ts'
import { connectionLimits } from '../../../../src/realtime/telephony/sip/from-config.ts'
import { sourceOf } from '../../../../src/realtime/telephony/sip/connection-guard.ts'

test('an IPv4 address is its own source, also when written IPv4-mapped', () => {
  expect(sourceOf('127.0.0.2')).toBe('127.0.0.2')
  expect(sourceOf('::ffff:127.0.0.2')).toBe('127.0.0.2')
  expect(sourceOf('::FFFF:203.0.113.9')).toBe('203.0.113.9')
})

test('every IPv6 address of one /64 counts as one source, however it is spelled', () => {
  const table: [string, string][] = [
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:0:0:1::', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
  ]
  for (const [address, source] of table) expect(sourceOf(address)).toBe(source)
  expect(sourceOf('2001:db8:1:3::1')).not.toBe(sourceOf('2001:db8:1:2::1'))
})

test('the SIP connection keys become the limits (a cap or deadline of 0 loadConfig refuses: test/unit/config-checks.test.ts)', () => {
  const config = loadConfig({}, { SIP_MAX_CONNECTIONS_PER_SOURCE: 8, SIP_MESSAGE_TIMEOUT_MS: 2000 })
  expect(connectionLimits(config)).toEqual({
    maxConnections: 1024, maxConnectionsPerSource: 8, idleTimeoutMs: 300_000, messageTimeoutMs: 2000, handshakeTimeoutMs: 10_000, onRefused: undefined,
  })
  expect(connectionLimits(loadConfig({}, { SIP_MAX_CONNECTIONS_PER_SOURCE: 0 })).maxConnectionsPerSource).toBe(0)
})
