import { describe, expect, test } from 'bun:test'
import {
  formatSdesCrypto,
  generateInlineKey,
  parseSdesCrypto,
  parseSdesKeyParams,
  SrtpInbound,
  SrtpOutbound,
  unusableSdesReason,
} from '../../../src/realtime/srtp/index.ts'

const KEY = generateInlineKey('AES_CM_128_HMAC_SHA1_80')

describe('parsing a=crypto attributes (RFC 4568)', () => {
  test('tag, suite and inline key, with or without the a=crypto: prefix', () => {
    for (const line of [`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}`, `1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}`]) {
      const c = parseSdesCrypto(line)!
      expect(c).toMatchObject({ tag: 1, suite: 'AES_CM_128_HMAC_SHA1_80', sessionParams: [] })
      expect(c.keys.map((k) => k.inline)).toEqual([KEY])
    }
  })

  test('lifetime as 2^n or a decimal count, and an MKI with its length', () => {
    expect(parseSdesCrypto(`2 AES_CM_128_HMAC_SHA1_32 inline:${KEY}|2^20|1:4`)!.keys[0]).toMatchObject({ lifetime: 1048576, mki: { value: 1n, length: 4 } })
    expect(parseSdesCrypto(`2 AES_CM_128_HMAC_SHA1_32 inline:${KEY}|1048576`)!.keys[0]).toMatchObject({ lifetime: 1048576 })
    const mkiOnly = parseSdesCrypto(`2 AES_CM_128_HMAC_SHA1_32 inline:${KEY}|7:2`)!.keys[0]!
    expect(mkiOnly.mki).toEqual({ value: 7n, length: 2 })
    expect(mkiOnly.lifetime).toBeUndefined()
  })

  test('several keys and session parameters are kept in order', () => {
    const other = generateInlineKey('AES_CM_128_HMAC_SHA1_80')
    const c = parseSdesCrypto(`3 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|2^20|1:4;inline:${other}|2^20|2:4 KDR=0 WSH=256`)!
    expect(c.keys.map((k) => [k.inline, k.mki?.value])).toEqual([[KEY, 1n], [other, 2n]])
    expect(c.sessionParams).toEqual(['KDR=0', 'WSH=256'])
    expect(parseSdesKeyParams(`inline:${KEY};inline:${other}`)?.length).toBe(2)
  })

  test('malformed attributes are refused', () => {
    for (const bad of [
      '',
      'a=crypto:',
      `x AES_CM_128_HMAC_SHA1_80 inline:${KEY}`,
      `1234567890 AES_CM_128_HMAC_SHA1_80 inline:${KEY}`,
      `1 AES_CM_128_HMAC_SHA1_80`,
      `1 AES_CM_128_HMAC_SHA1_80 uri:https://example.com/key`,
      `1 AES_CM_128_HMAC_SHA1_80 inline:not*base64`,
      `1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|1:4|2^20`,
      `1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|1:0`,
      `1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|1:129`,
      `1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|256:1`,
      `1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|2^20|2^20`,
      `1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|2^20|1:4|x`,
      `1 AES_CM_128_HMAC_SHA1_80 inline:${KEY};`,
    ]) {
      expect(parseSdesCrypto(bad)).toBeUndefined()
    }
  })

  test('a parsed attribute does not show its key when logged or serialised', () => {
    const c = parseSdesCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|2^20`)!
    expect(JSON.stringify(c)).not.toContain(KEY)
    expect(Bun.inspect(c)).not.toContain(KEY)
    expect(c.keys[0]!.inline).toBe(KEY)
  })
})

describe('which offered attributes can key a context', () => {
  test('a supported suite with one key and no MKI can, whatever its lifetime', () => {
    expect(unusableSdesReason(parseSdesCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|2^31`)!)).toBeUndefined()
    expect(unusableSdesReason(parseSdesCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY} KDR=0 WSH=128`)!)).toBeUndefined()
  })

  test('other suites, several keys, an MKI and other session parameters cannot, and say why', () => {
    const other = generateInlineKey('AES_CM_128_HMAC_SHA1_80')
    expect(unusableSdesReason(parseSdesCrypto(`1 AES_256_CM_HMAC_SHA1_80 inline:${KEY}`)!)).toContain('AES_256_CM_HMAC_SHA1_80')
    expect(unusableSdesReason(parseSdesCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|1:4;inline:${other}|2:4`)!)).toContain('2 keys')
    expect(unusableSdesReason(parseSdesCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|1:4`)!)).toContain('MKI')
    expect(unusableSdesReason(parseSdesCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY} UNENCRYPTED_SRTP`)!)).toContain('UNENCRYPTED_SRTP')
    expect(unusableSdesReason(parseSdesCrypto(`1 AES_CM_128_HMAC_SHA1_80 inline:${KEY} KDR=24`)!)).toContain('KDR')
  })
})

describe('formatting a=crypto attributes', () => {
  test('format and parse agree, lifetime written as 2^n when it is a power of two', () => {
    const key = generateInlineKey('AEAD_AES_128_GCM')
    const text = formatSdesCrypto({ tag: 1, suite: 'AEAD_AES_128_GCM', inlineKey: key, lifetime: 2 ** 31, mki: { value: 1n, length: 4 } })
    expect(text).toBe(`1 AEAD_AES_128_GCM inline:${key}|2^31|1:4`)
    expect(formatSdesCrypto({ tag: 2, suite: 'AES_CM_128_HMAC_SHA1_80', inlineKey: KEY, lifetime: 1000, sessionParams: ['KDR=0'] })).toBe(`2 AES_CM_128_HMAC_SHA1_80 inline:${KEY}|1000 KDR=0`)
    const parsed = parseSdesCrypto(text)!
    expect(parsed.keys[0]!.inline).toBe(key)
    expect(parsed.keys[0]!.lifetime).toBe(2 ** 31)
  })

  test('a key offered in our attribute and parsed back by the peer keys matching contexts', () => {
    const key = generateInlineKey('AES_CM_128_HMAC_SHA1_32')
    const theirs = parseSdesCrypto(`a=crypto:${formatSdesCrypto({ tag: 1, suite: 'AES_CM_128_HMAC_SHA1_32', inlineKey: key })}`)!
    const packet = Uint8Array.from([0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 1, 2, 3])
    const sealed = new SrtpOutbound('AES_CM_128_HMAC_SHA1_32', key).protectRtp(packet) as Uint8Array
    const opened = new SrtpInbound('AES_CM_128_HMAC_SHA1_32', theirs.keys[0]!.inline).unprotectRtp(sealed)
    expect(opened).toEqual(packet)
  })
})
