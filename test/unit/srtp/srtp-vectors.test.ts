// Known answers. RFC 3711 Appendix B.2 (AES-CM keystream) and B.3 (key derivation, the first
// 160 bits of the auth key, the length SRTP uses); libsrtp's test/srtp_driver.c packets
// (srtp_validate, srtp_validate_gcm), which start from a master key and so cover the key
// derivation, the cipher and the tag together; RFC 7714's AEAD_AES_128_GCM SRTP and SRTCP
// examples, which give the session key and salt directly.
import { describe, expect, test } from 'bun:test'
import { AesCmTransform } from '../../../src/realtime/srtp/cm.ts'
import { GcmTransform } from '../../../src/realtime/srtp/gcm.ts'
import { SrtpInbound, SrtpOutbound, type SrtpCrypto, type SrtpSuite } from '../../../src/realtime/srtp/index.ts'
import { aesCmKeystream, deriveSessionKeys } from '../../../src/realtime/srtp/keys.ts'
import { libcrypto, OpenSslCmStream, OpenSslGcmStream } from '../../../src/realtime/srtp/openssl.ts'

const ENGINES: SrtpCrypto[] = ['openssl', 'builtin']

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'))
const toHex = (b: Uint8Array | string) => (typeof b === 'string' ? b : Buffer.from(b).toString('hex'))
const inline = (s: string) => Buffer.from(hex(s)).toString('base64')

describe('RFC 3711 Appendix B', () => {
  const sessionKey = hex('2B7E151628AED2A6ABF7158809CF4F3C')
  const keystream = hex(`E03EAD0935C95E80E166B16DD92B4EB4 D23513162B02D0F72A43A2FE4A5F97AB 41E95B3BB0A2E8DD477901E4FCA894C0`)

  test('B.2: the AES-CM keystream from the session key and salt-derived IV', () => {
    expect(toHex(aesCmKeystream(sessionKey, hex('F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000'), 48))).toBe(toHex(keystream))
  })

  test.each(ENGINES)('B.2 on %s: an SRTP packet of SSRC 0 and index 0 with a zero payload encrypts to that keystream', (engine) => {
    const keys = { encryption: sessionKey, salt: hex('F0F1F2F3F4F5F6F7F8F9FAFBFCFD'), auth: new Uint8Array(20) }
    const buf = new Uint8Array(12 + 48 + 10)
    buf[0] = 0x80
    const transform = engine === 'openssl' ? new AesCmTransform(keys, keys, 10, 10, (k) => new OpenSslCmStream(libcrypto()!, k)) : new AesCmTransform(keys, keys, 10, 10)
    transform.sealRtp(buf, 12, 60, 0, 0)
    expect(toHex(buf.subarray(12, 60))).toBe(toHex(keystream))
  })

  test('B.3: the session encryption key, salt and auth key from the master key and salt', () => {
    const master = { key: hex('E1F97A0D3E018BE0D64FA32C06DE4139'), salt: hex('0EC675AD498AFEEBB6960B3AABE6') }
    const keys = deriveSessionKeys('AES_CM_128_HMAC_SHA1_80', master, 'rtp')
    expect(toHex(keys.encryption)).toBe('c61e7a93744f39ee10734afe3ff7a087')
    expect(toHex(keys.salt)).toBe('30cbbc08863d8c85d49db34a9ae1')
    expect(toHex(keys.auth)).toBe('cebe321f6ff7716b6fd4ab49af256a156d38baa4')
  })
})

describe("libsrtp's srtp_driver.c reference packets, from the master key", () => {
  const cases: { suite: SrtpSuite; key: string; srtp: string; srtcp: string }[] = [
    {
      suite: 'AES_CM_128_HMAC_SHA1_80',
      key: 'e1f97a0d3e018be0d64fa32c06de4139 0ec675ad498afeebb6960b3aabe6',
      srtp: '800f1234decafbadcafebabe 4e55dc4ce79978d88ca4d215949d2402 b78d6acc99ea179b8dbb',
      srtcp: '81c8000bcafebabe 7128035be487b9bdbef89041f977a5a8 80000001 993e08cd54d6c1230798',
    },
    {
      suite: 'AEAD_AES_128_GCM',
      key: '000102030405060708090a0b0c0d0e0f a0a1a2a3a4a5a6a7a8a9aaab',
      srtp: '800f1234decafbadcafebabe c5002ede04cfdd2eb91159e0880aa06e d2976826f796b201df3131a127e8a392',
      srtcp: '81c8000bcafebabe c98b8b5df0392a55852b6c21ac8e7025 c52c6fbea2b3b446ea31123ba88ce61e 80000001',
    },
  ]
  const rtp = hex(`800f1234decafbadcafebabe ${'ab'.repeat(16)}`)
  const rtcp = hex(`81c8000bcafebabe ${'ab'.repeat(16)}`)

  for (const { suite, key, srtp, srtcp } of cases) {
    test(`${suite}, libcrypto's ciphers under the framing directly: RTP seals to the reference bytes and opens back`, () => {
      const master = { key: hex(key).subarray(0, 16), salt: hex(key).subarray(16) }
      const [rtpKeys, rtcpKeys] = [deriveSessionKeys(suite, master, 'rtp'), deriveSessionKeys(suite, master, 'rtcp')]
      const lib = libcrypto()!
      const transform =
        suite === 'AEAD_AES_128_GCM'
          ? new GcmTransform(rtpKeys, rtcpKeys, (k) => new OpenSslGcmStream(lib, k))
          : new AesCmTransform(rtpKeys, rtcpKeys, 10, 10, (k) => new OpenSslCmStream(lib, k))
      expect(transform.engine).toBe('openssl')
      const buf = new Uint8Array(hex(srtp).length)
      buf.set(rtp)
      transform.sealRtp(buf, 12, rtp.length, 0xcafebabe, 0x1234)
      expect(toHex(buf)).toBe(toHex(hex(srtp)))
      expect(transform.openRtp(buf, 12, rtp.length, 0xcafebabe, 0x1234)).toBe(true)
      expect(toHex(buf.subarray(0, rtp.length))).toBe(toHex(rtp))
    })

    for (const crypto of ENGINES) {
      test(`${suite} on ${crypto}: RTP protects to the reference bytes and unprotects back`, () => {
        expect(toHex(new SrtpOutbound(suite, inline(key), { crypto }).protectRtp(rtp))).toBe(toHex(hex(srtp)))
        expect(toHex(new SrtpInbound(suite, inline(key), { crypto }).unprotectRtp(hex(srtp)))).toBe(toHex(rtp))
      })

      test(`${suite} on ${crypto}: RTCP with SRTCP index 1 protects to the reference bytes and unprotects back`, () => {
        const out = new SrtpOutbound(suite, inline(key), { crypto })
        out.protectRtcp(rtcp) // libsrtp numbers its first SRTCP packet 1, RFC 3711 3.4 numbers it 0
        expect(toHex(out.protectRtcp(rtcp))).toBe(toHex(hex(srtcp)))
        expect(toHex(new SrtpInbound(suite, inline(key), { crypto }).unprotectRtcp(hex(srtcp)))).toBe(toHex(rtcp))
      })
    }
  }
})

describe.each(ENGINES)('RFC 7714 AEAD_AES_128_GCM examples (session key and salt given) on %s', (engine) => {
  const keys = { encryption: hex('000102030405060708090a0b0c0d0e0f'), salt: hex('517569642070726f2071756f'), auth: new Uint8Array(0) }
  const gcm = () => (engine === 'openssl' ? new GcmTransform(keys, keys, (k) => new OpenSslGcmStream(libcrypto()!, k)) : new GcmTransform(keys, keys))
  const rtp = hex('8040f17b8041f8d35501a0b2 47616c6c696120657374206f6d6e69732064697669736120696e207061727465732074726573')
  const srtp = hex(`8040f17b8041f8d35501a0b2 f24de3a3fb34de6cacba861c9d7e4bcabe633bd50d294e6f42a5f47a51c7d19b36de3adf8833
    899d7f27beb16a9152cf765ee4390cce`)
  const rtcp = hex(`81c8000d4d617273 4e5450314e545032525450200000042a0000e9304c756e61 ${'deadbeef'.repeat(5)}`)
  const srtcp = hex(`81c8000d4d617273 63e94885dcdab67ca727d7662f6b7e997ff5c0f76c06f32dc676a5f1730d6fda4ce09b4686303ded
    0bb9275bc84aa45896cf4d2fc5abf87245d9eade 800005d4`)

  test('SRTP: SSRC 0x5501a0b2, ROC 0, SEQ 0xf17b encrypts with the header as associated data', () => {
    const buf = new Uint8Array(srtp.length)
    buf.set(rtp)
    gcm().sealRtp(buf, 12, rtp.length, 0x5501a0b2, 0xf17b)
    expect(toHex(buf)).toBe(toHex(srtp))
    expect(gcm().openRtp(buf, 12, rtp.length, 0x5501a0b2, 0xf17b)).toBe(true)
    expect(toHex(buf.subarray(0, rtp.length))).toBe(toHex(rtp))
  })

  test('SRTCP: index 0x5d4 with the E flag, the tag before the index word', () => {
    const buf = new Uint8Array(srtcp.length)
    buf.set(rtcp)
    expect(gcm().sealRtcp(buf, rtcp.length, 0x4d617273, 0x5d4)).toBe(srtcp.length)
    expect(toHex(buf)).toBe(toHex(srtcp))
    expect(gcm().openRtcp(buf, srtcp.length, 0x4d617273, 0x5d4, true)).toBe(rtcp.length)
    expect(toHex(buf.subarray(0, rtcp.length))).toBe(toHex(rtcp))
  })
})
