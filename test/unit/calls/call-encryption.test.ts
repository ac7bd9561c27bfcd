import { expect, test } from 'bun:test'
import { callEncryption } from '../../../src/features/calls/runtime/encryption.ts'
import { targetTransport } from '../../../src/realtime/telephony/sip/index.ts'

test('the transport of a dial target: its parameter, else tls for sips: and udp for sip:', () => {
  expect(targetTransport('sip:+15550100@trunk.example.com;transport=TLS')).toBe('tls')
  expect(targetTransport('sip:+15550100@trunk.example.com:5060;transport=tcp')).toBe('tcp')
  expect(targetTransport('sips:+15550100@trunk.example.com')).toBe('tls')
  expect(targetTransport('sip:+15550100@trunk.example.com')).toBe('udp')
})

test('required media encryption is refused on udp and tcp signalling, saying why; it holds on tls', () => {
  const route = { e164: '+15550100', mediaEncryption: 'required' as const }
  for (const transport of ['udp', 'tcp', 'UDP']) {
    const out = callEncryption(route, transport)
    expect('refused' in out && out.refused).toContain('SDES keys travel only over TLS')
  }
  expect(callEncryption(route, 'tls')).toEqual({ encryption: 'required' })
})

test('optional and none keep their policy on any transport', () => {
  expect(callEncryption({ e164: '+15550100', mediaEncryption: 'optional' }, 'udp')).toEqual({ encryption: 'optional' })
  expect(callEncryption({ e164: '+15550100', mediaEncryption: 'none' }, 'tls')).toEqual({ encryption: 'none' })
})
