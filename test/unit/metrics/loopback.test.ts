import { expect, test } from 'bun:test'
import { isLoopback } from '../../../src/platform/metrics/index.ts'

test('only loopback addresses count as local scrapers', () => {
  for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopback(ip)).toBe(true)
  for (const ip of ['10.0.0.1', '192.168.1.2', '::ffff:10.0.0.1', '2001:db8::1', '', '1.127.0.0', '::12']) expect(isLoopback(ip)).toBe(false)
})
