import { describe, expect, test } from 'bun:test'
import { publicBaseOf, publicHttpBase, type PublicUrlConfig } from '../../../src/platform/net/index.ts'

const config = (over: Partial<PublicUrlConfig> = {}): PublicUrlConfig => ({ PUBLIC_HTTP_URL: '', PUBLIC_HOST: '', HTTP_HOST: '0.0.0.0', HTTP_PORT: 3000, ...over })

describe('public base URL: one fallback order', () => {
  const cases: [string, Partial<PublicUrlConfig>, number | undefined, string][] = [
    ['PUBLIC_HTTP_URL wins over everything, trailing slashes removed', { PUBLIC_HTTP_URL: 'https://voice.example.com//', PUBLIC_HOST: '203.0.113.7' }, 41000, 'https://voice.example.com'],
    ['PUBLIC_HTTP_URL keeps its path', { PUBLIC_HTTP_URL: 'https://example.com/voice/' }, undefined, 'https://example.com/voice'],
    ['then PUBLIC_HOST with the port HTTP listens on', { PUBLIC_HOST: '203.0.113.7' }, 41000, 'http://203.0.113.7:41000'],
    ['HTTP_PORT while the listening port is unknown', { PUBLIC_HOST: 'pbx.example.com' }, undefined, 'http://pbx.example.com:3000'],
    ['an IPv6 PUBLIC_HOST in brackets', { PUBLIC_HOST: '2001:db8::7' }, 3000, 'http://[2001:db8::7]:3000'],
    ['a bracketed IPv6 PUBLIC_HOST stays as written', { PUBLIC_HOST: '[2001:db8::7]' }, 3000, 'http://[2001:db8::7]:3000'],
    ['PUBLIC_HOST unresolved: a specific HTTP_HOST', { HTTP_HOST: '192.0.2.10' }, 3000, 'http://192.0.2.10:3000'],
    ['PUBLIC_HOST unresolved and HTTP_HOST 0.0.0.0: loopback', {}, 3000, 'http://127.0.0.1:3000'],
    ['PUBLIC_HOST unresolved and HTTP_HOST :: : loopback', { HTTP_HOST: '::' }, 3000, 'http://127.0.0.1:3000'],
  ]
  for (const [name, over, port, expected] of cases) {
    test(name, () => expect(publicHttpBase(config(over), port)).toBe(expected))
  }

  test('publicBaseOf reads the server port each time it is asked (known only once HTTP listens)', () => {
    let server: { port?: number } | undefined
    const base = publicBaseOf(config({ PUBLIC_HOST: '198.51.100.1', HTTP_PORT: 0 }), () => server)
    server = { port: 45123 }
    expect(base()).toBe('http://198.51.100.1:45123')
  })
})
