import { describe, expect, test } from 'bun:test'
import { AesCmTransform } from '../../../src/realtime/srtp/cm.ts'
import { decodeInlineKey, generateInlineKey } from '../../../src/realtime/srtp/index.ts'
import { aesCmKeystream, deriveSessionKeys } from '../../../src/realtime/srtp/keys.ts'

const SUITE = 'AES_CM_128_HMAC_SHA1_80'
const HEADER = 12
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex')

/** The AES-CM payload keystream of RFC 3711 4.1.1, built from the spec for each packet on its own. */
function expectedKeystream(key: Uint8Array, salt: Uint8Array, ssrc: number, index: number, length: number): Uint8Array {
  const iv = new Uint8Array(16)
  iv.set(salt)
  const view = new DataView(iv.buffer)
  view.setUint32(4, view.getUint32(4) ^ ssrc)
  const high = Math.floor(index / 0x100000000)
  view.setUint16(8, view.getUint16(8) ^ high)
  view.setUint32(10, view.getUint32(10) ^ (index >>> 0))
  return aesCmKeystream(key, iv, length)
}

describe('AES-CM keystream made several packets ahead', () => {
  const master = decodeInlineKey(SUITE, generateInlineKey(SUITE))
  const keys = deriveSessionKeys(SUITE, master, 'rtp')
  const rtcpKeys = deriveSessionKeys(SUITE, master, 'rtcp')

  test('every packet gets its own keystream, in order, out of order, across SSRCs, lengths and 2^32', () => {
    const t = new AesCmTransform(keys, rtcpKeys, 10, 10)
    const packets: [number, number, number][] = [
      [0x11223344, 0, 160], [0x11223344, 1, 160], [0x11223344, 2, 20], [0x11223344, 40, 160], [0x11223344, 3, 160],
      [0x11223344, 41, 300], [0x11223344, 42, 160], [0x55667788, 42, 160], [0x11223344, 43, 160], [0x55667788, 43, 1],
      [0xffffffff, 0xffffffff, 160], [0xffffffff, 0x100000000, 160], [0xffffffff, 0x10000000f, 33], [0xffffffff, 0xffffffffffff, 160],
    ]
    for (const [ssrc, index, length] of packets) {
      const buf = new Uint8Array(HEADER + length + 10)
      t.sealRtp(buf, HEADER, HEADER + length, ssrc, index)
      expect(toHex(buf.subarray(HEADER, HEADER + length))).toBe(toHex(expectedKeystream(keys.encryption, keys.salt, ssrc, index, length)))
      expect(t.openRtp(buf, HEADER, HEADER + length, ssrc, index)).toBe(true)
      expect(buf.subarray(HEADER, HEADER + length).every((b) => b === 0)).toBe(true)
    }
  })

  test('a buffer sealed into packet after packet (word-wise XOR) and one at an odd offset get the same keystream', () => {
    const sendBuf = new Uint8Array(1500)
    const odd = new Uint8Array(1501).subarray(1)
    for (const buf of [sendBuf, odd]) {
      const t = new AesCmTransform(keys, rtcpKeys, 10, 10)
      for (const [index, header, length] of [[0, 12, 160], [1, 12, 160], [2, 16, 161], [3, 12, 3], [4, 20, 167], [5, 12, 160], [40, 12, 160]] as const) {
        buf.fill(0)
        t.sealRtp(buf, header, header + length, 7, index)
        expect(toHex(buf.subarray(header, header + length))).toBe(toHex(expectedKeystream(keys.encryption, keys.salt, 7, index, length)))
        expect(buf[header + length + 10]).toBe(0)
      }
    }
  })

  test('a packet whose tag fails is left as it came, its tag bytes included', () => {
    const t = new AesCmTransform(keys, rtcpKeys, 10, 10)
    const buf = new Uint8Array(HEADER + 160 + 10).map((_, i) => i & 0xff)
    t.sealRtp(buf, HEADER, HEADER + 160, 1, 5)
    buf[HEADER + 160 + 9]! ^= 1
    const before = buf.slice()
    expect(t.openRtp(buf, HEADER, HEADER + 160, 1, 5)).toBe(false)
    expect(toHex(buf)).toBe(toHex(before))
  })
})
