import { describe, expect, test } from 'bun:test'
import { authorize, digestResponse, parseAuthParams, parseChallenge, request, verifyAuthorization } from '../../../../src/realtime/telephony/sip/index.ts'
import { Challenger } from '../../../../src/realtime/telephony/sip/challenge.ts'

// RFC 7616 section 3.9.1: the same request answered with SHA-256 and with MD5
const RFC7616 = {
  username: 'Mufasa', password: 'Circle of Life', realm: 'http-auth@example.org',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v', method: 'GET', uri: '/dir/index.html',
  qop: 'auth' as const, nc: '00000001', cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
}

describe('digest response', () => {
  test.each([
    ['SHA-256', '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1'],
    ['MD5', '8ca523f5e9506fed4657c9700eebdbec'],
  ] as const)('matches the RFC 7616 example for %s', (algorithm, want) => {
    expect(digestResponse({ ...RFC7616, algorithm })).toBe(want)
  })

  test('matches the RFC 2617 example without qop semantics changed (qop=auth, MD5)', () => {
    expect(
      digestResponse({
        algorithm: 'MD5', username: 'Mufasa', password: 'Circle Of Life', realm: 'testrealm@host.com',
        nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', method: 'GET', uri: '/dir/index.html', qop: 'auth', nc: '00000001', cnonce: '0a4f113b',
      }),
    ).toBe('6629fae49393a05397450978507c4ef1')
  })
})

describe('challenges', () => {
  test('reads realm, nonce, algorithm, qop and opaque', () => {
    expect(parseChallenge('Digest realm="trunk", nonce="abc", qop="auth,auth-int", algorithm=SHA-256, opaque="o", stale=TRUE')).toEqual({
      realm: 'trunk', nonce: 'abc', algorithm: 'SHA-256', qop: 'auth', opaque: 'o', stale: true,
    })
    expect(parseChallenge('Digest realm="r", nonce="n"')).toMatchObject({ algorithm: 'MD5', qop: undefined })
  })

  test.each([
    ['another scheme', 'Basic realm="x"'],
    ['an unknown algorithm', 'Digest realm="r", nonce="n", algorithm=SHA-512-256'],
    ['only auth-int', 'Digest realm="r", nonce="n", qop="auth-int"'],
    ['no nonce', 'Digest realm="r"'],
  ])('refuses %s', (_, value) => {
    expect(parseChallenge(value)).toBeUndefined()
  })

  test('an Authorization we build verifies with the right password only', () => {
    for (const algorithm of ['MD5', 'SHA-256'] as const) {
      const ch = { realm: 'trunk.test', nonce: 'n0nce', algorithm, qop: 'auth' as const, opaque: 'op', stale: false }
      const value = authorize(ch, { username: 'u', password: 'p"w' }, 'INVITE', 'sip:+1555@trunk.test')
      const params = parseAuthParams(value)!
      expect(params.get('algorithm')).toBe(algorithm)
      expect(params.get('nc')).toBe('00000001')
      expect(params.get('opaque')).toBe('op')
      expect(verifyAuthorization(value, { username: 'u', password: 'p"w' }, 'INVITE', 'trunk.test', 'n0nce')).toBe(true)
      expect(verifyAuthorization(value, { username: 'u', password: 'nope' }, 'INVITE', 'trunk.test', 'n0nce')).toBe(false)
      expect(verifyAuthorization(value, { username: 'u', password: 'p"w' }, 'BYE', 'trunk.test', 'n0nce')).toBe(false)
    }
  })
})

describe('challenges we send', () => {
  const invite = (auth?: string) =>
    request('INVITE', 'sip:+1555@127.0.0.1', auth ? [{ name: 'Authorization', value: auth }] : [])

  test('an answer to our nonce verifies until the nonce expires; unknown nonces are stale', () => {
    let now = 0
    const ch = new Challenger('appliance', ['SHA-256', 'MD5'], () => now)
    const headers = ch.challenge()
    expect(headers.map((h) => parseChallenge(h.value)!.algorithm)).toEqual(['SHA-256', 'MD5'])
    const answer = authorize(parseChallenge(headers[0]!.value)!, { username: 'u', password: 'p' }, 'INVITE', 'sip:+1555@127.0.0.1')
    expect(ch.verify(invite(answer), { username: 'u', password: 'p' })).toBe(true)
    expect(ch.verify(invite(answer), { username: 'u', password: 'q' })).toBe(false)
    expect(ch.isStale(invite(answer))).toBe(false)
    now = 5 * 60_000 + 1
    expect(ch.verify(invite(answer), { username: 'u', password: 'p' })).toBe(false)
    expect(ch.isStale(invite(answer))).toBe(true)
    expect(ch.verify(invite(), { username: 'u', password: 'p' })).toBe(false)
  })
})
