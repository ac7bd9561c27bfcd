import { describe, expect, test } from 'bun:test'
import { parseSipUri } from '../../../src/platform/net/index.ts'

describe('parseSipUri', () => {
  test('reads user, host, port and parameters', () => {
    expect(parseSipUri('sip:+14155550123@203.0.113.7:5080;transport=udp')).toEqual({
      scheme: 'sip',
      user: '+14155550123',
      host: '203.0.113.7',
      port: 5080,
      params: { transport: 'udp' },
    })
    expect(parseSipUri('sips:trunk.example.com')).toEqual({ scheme: 'sips', user: undefined, host: 'trunk.example.com', port: undefined, params: {} })
    expect(parseSipUri('sip:pbx@[2001:db8::1]:5061;lr')?.params).toEqual({ lr: null })
  })

  test.each([
    'trunk.example.com',
    'http://trunk.example.com',
    'sip:',
    'sip:@host',
    'sip:host:0',
    'sip:host:70000',
    'sip:host:abc',
    'sip:bad_host!.com',
    'sip:[::1',
    'sip:host;transport=carrier-pigeon',
    'sip:host?subject=x',
    ' sip:host',
    'sip:999.1',
  ])('refuses %p', (raw) => {
    expect(parseSipUri(raw)).toBeUndefined()
  })
})
