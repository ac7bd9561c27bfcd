import { describe, expect, test } from 'bun:test'
import { createCipheriv, createHmac } from 'node:crypto'
import fc from 'fast-check'
import {
  decodeInlineKey,
  generateInlineKey,
  isSrtpSuite,
  SRTP_SUITES,
  SrtpInbound,
  SrtpKeyError,
  SrtpOutbound,
  type SrtpCrypto,
  type SrtpSuite,
} from '../../../src/realtime/srtp/index.ts'
import { deriveSessionKeys } from '../../../src/realtime/srtp/keys.ts'

const SUITES = Object.keys(SRTP_SUITES) as SrtpSuite[]
const CASES = SUITES.flatMap((suite) => (['openssl', 'builtin'] as SrtpCrypto[]).map((crypto) => [suite, crypto] as const))
const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'))
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const RTCP = hex('81c90007 11223344 55667788 00000001 00000002 00000003 00000000 00000000')

describe('SDES inline keys', () => {
  test('a fresh key is master key || salt for the suite: 30 bytes for AES-CM, 28 for AES-GCM', () => {
    for (const suite of SUITES) {
      const key = generateInlineKey(suite)
      expect(Buffer.from(key, 'base64').length).toBe(16 + SRTP_SUITES[suite].saltBytes)
      expect(key).not.toBe(generateInlineKey(suite))
      expect(decodeInlineKey(suite, key).salt.length).toBe(SRTP_SUITES[suite].saltBytes)
    }
  })

  test('an AES-GCM key without its base64 padding is still read', () => {
    const key = generateInlineKey('AEAD_AES_128_GCM')
    expect(key.endsWith('==')).toBe(true)
    expect(toHex(decodeInlineKey('AEAD_AES_128_GCM', key.replace(/=+$/, '')).key)).toBe(toHex(decodeInlineKey('AEAD_AES_128_GCM', key).key))
  })

  test('a key of the wrong length or not base64 is refused with an error that does not quote it', () => {
    const cm = generateInlineKey('AES_CM_128_HMAC_SHA1_80')
    for (const [suite, key] of [['AEAD_AES_128_GCM', cm], ['AES_CM_128_HMAC_SHA1_80', cm.slice(0, 36)], ['AES_CM_128_HMAC_SHA1_32', `${cm.slice(1)}!`]] as const) {
      expect(() => new SrtpInbound(suite, key)).toThrow(SrtpKeyError)
      try {
        decodeInlineKey(suite, key)
      } catch (e) {
        expect(String(e)).not.toContain(key.slice(0, 12))
      }
    }
  })

  test('suite names are recognised exactly', () => {
    expect(isSrtpSuite('AES_CM_128_HMAC_SHA1_80')).toBe(true)
    expect(isSrtpSuite('aes_cm_128_hmac_sha1_80')).toBe(false)
    expect(isSrtpSuite('toString')).toBe(false)
  })

  test('neither context shows its keys when inspected, stringified or serialised', () => {
    for (const suite of SUITES) {
      const key = generateInlineKey(suite)
      const master = decodeInlineKey(suite, key)
      const secrets = [key, toHex(master.key), ...(['rtp', 'rtcp'] as const).map((s) => toHex(deriveSessionKeys(suite, master, s).encryption))]
      for (const context of [new SrtpOutbound(suite, key), new SrtpInbound(suite, key)]) {
        const shown = [Bun.inspect(context), JSON.stringify(context), String(context), Object.keys(context).join()].join('\n')
        for (const secret of secrets) expect(shown).not.toContain(secret)
      }
    }
  })
})

describe('packets that are not SRTP or SRTCP', () => {
  test.each(CASES)('%s on %s: short, wrong-version and truncated packets are refused as malformed without throwing', (suite, crypto) => {
    const inb = new SrtpInbound(suite, generateInlineKey(suite), { crypto })
    const out = new SrtpOutbound(suite, generateInlineKey(suite), { crypto })
    const tag = SRTP_SUITES[suite].rtpTagBytes
    const oneShortOfTag = Uint8Array.from([0x80, ...new Uint8Array(12 + tag - 2)])
    const bad = [...['', '80', '8000', '40000001000000000000000100', '8f000001000000000000000100000000', '90000001000000000000000100'].map(hex), oneShortOfTag]
    for (const packet of bad) {
      expect(inb.unprotectRtp(packet)).toBe('malformed')
      expect(inb.unprotectRtcp(packet)).toBe('malformed')
    }
    expect(inb.malformed).toBe(bad.length * 2)
    expect(inb.authFailures + inb.replays).toBe(0)
    for (const packet of ['', '8000', '40000001000000000000000100'].map(hex)) {
      expect(out.protectRtp(packet)).toBe('malformed')
      expect(out.protectRtcp(packet)).toBe('malformed')
    }
  })

  test.each(CASES)('%s on %s: random bytes are refused, never thrown on', (suite, crypto) => {
    const inb = new SrtpInbound(suite, generateInlineKey(suite), { crypto })
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (packet, v2) => {
        if (v2 && packet.length > 0) packet[0] = 0x80 | (packet[0]! & 0x3f)
        expect(typeof inb.unprotectRtp(packet)).toBe('string')
        expect(typeof inb.unprotectRtcp(packet)).toBe('string')
      }),
      { numRuns: 300 },
    )
  })
})

describe('SRTCP sent without encryption (E flag clear)', () => {
  const word = hex('00000007') // E flag clear, SRTCP index 7

  test.each(CASES)('%s on %s: it is authenticated and handed back unchanged; tampering is refused', (suite, crypto) => {
    const key = generateInlineKey(suite)
    const keys = deriveSessionKeys(suite, decodeInlineKey(suite, key), 'rtcp')
    let packet: Uint8Array
    if (SRTP_SUITES[suite].aead) {
      const iv = keys.salt.slice()
      hex('0000 11223344 0000 00000007').forEach((b, i) => (iv[i]! ^= b))
      const gcm = createCipheriv('aes-128-gcm', keys.encryption, iv)
      gcm.setAAD(Buffer.concat([RTCP, word]))
      gcm.final()
      packet = Buffer.concat([RTCP, gcm.getAuthTag(), word])
    } else {
      const mac = createHmac('sha1', keys.auth).update(RTCP).update(word).digest().subarray(0, 10)
      packet = Buffer.concat([RTCP, word, mac])
    }
    const inb = new SrtpInbound(suite, key, { crypto })
    const tampered = Uint8Array.from(packet)
    tampered[12]! ^= 1
    expect(inb.unprotectRtcp(tampered)).toBe('auth')
    const plain = inb.unprotectRtcp(packet)
    expect(plain).toBeInstanceOf(Uint8Array)
    expect(toHex(plain as Uint8Array)).toBe(toHex(RTCP))
    expect(inb.unprotectRtcp(packet)).toBe('replay')
  })
})
