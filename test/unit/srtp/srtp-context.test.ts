import { describe, expect, test } from 'bun:test'
import { serializeRtp, type RtpPacket } from '../../../src/realtime/media/rtp/index.ts'
import { AesCmTransform } from '../../../src/realtime/srtp/cm.ts'
import { GcmTransform } from '../../../src/realtime/srtp/gcm.ts'
import { decodeInlineKey, SRTP_SUITES, SrtpInbound, SrtpOutbound, generateInlineKey, type SrtpCrypto, type SrtpSuite } from '../../../src/realtime/srtp/index.ts'
import { deriveSessionKeys } from '../../../src/realtime/srtp/keys.ts'

const SUITES = Object.keys(SRTP_SUITES) as SrtpSuite[]
/** Every suite on both cipher engines: libcrypto through FFI (the default) and the runtime's crypto. */
const CASES = SUITES.flatMap((suite) => (['openssl', 'builtin'] as SrtpCrypto[]).map((crypto) => [suite, crypto] as const))
const toHex = (b: Uint8Array | string) => (typeof b === 'string' ? b : Buffer.from(b).toString('hex'))

function rtp(seq: number, fields: Partial<RtpPacket> = {}): Uint8Array {
  const payload = new Uint8Array(160).map((_, i) => (i * 7 + seq) & 0xff)
  return serializeRtp({ marker: false, payloadType: 0, sequenceNumber: seq & 0xffff, timestamp: seq * 160, ssrc: 0x11223344, csrcs: [], payload, ...fields })
}

// A receiver report with one report block, from SSRC 0x11223344.
const RTCP = Uint8Array.from(Buffer.from('81c90007112233445566778800000001000000020000000300000000 00000000'.replace(/ /g, ''), 'hex'))

function pair(suite: SrtpSuite, crypto: SrtpCrypto) {
  const key = generateInlineKey(suite)
  return { out: new SrtpOutbound(suite, key, { crypto }), inb: new SrtpInbound(suite, key, { crypto }) }
}

function bytes(r: Uint8Array | string): Uint8Array {
  if (typeof r === 'string') throw new Error(`refused: ${r}`)
  return r
}

describe.each(CASES)('%s on %s', (suite, crypto) => {
  const { rtpTagBytes, rtcpTagBytes } = SRTP_SUITES[suite]

  test('RTP round-trips, with the header in the clear and the payload encrypted', () => {
    const { out, inb } = pair(suite, crypto)
    const plain = rtp(7, { csrcs: [1, 2], extension: { profile: 0xbede, data: new Uint8Array([0x10, 0xff, 0, 0]) }, padding: new Uint8Array([0, 0, 3]) })
    const sealed = bytes(out.protectRtp(plain))
    expect(sealed.length).toBe(plain.length + rtpTagBytes)
    expect(toHex(sealed.subarray(0, 28))).toBe(toHex(plain.subarray(0, 28)))
    expect(toHex(sealed.subarray(28, plain.length))).not.toBe(toHex(plain.subarray(28)))
    expect(toHex(bytes(inb.unprotectRtp(sealed)))).toBe(toHex(plain))
  })

  test('RTCP round-trips with the E flag set, SRTCP indices counting from 0, and the suite\'s SRTCP tag', () => {
    const { out, inb } = pair(suite, crypto)
    for (let index = 0; index < 3; index++) {
      const sealed = bytes(out.protectRtcp(RTCP))
      expect(sealed.length).toBe(RTCP.length + 4 + rtcpTagBytes)
      const wordAt = SRTP_SUITES[suite].aead ? sealed.length - 4 : RTCP.length
      expect(Buffer.from(sealed).readUInt32BE(wordAt)).toBe((0x80000000 | index) >>> 0)
      expect(toHex(sealed.subarray(8, RTCP.length))).not.toBe(toHex(RTCP.subarray(8)))
      expect(toHex(bytes(inb.unprotectRtcp(sealed)))).toBe(toHex(RTCP))
    }
  })

  test('a flipped bit in the header, payload or tag is refused and counted, and the stream goes on', () => {
    const { out, inb } = pair(suite, crypto)
    const sealed = bytes(out.protectRtp(rtp(1)))
    for (const at of [1, 40, sealed.length - 1]) {
      const bad = sealed.slice()
      bad[at]! ^= 0x01
      expect(inb.unprotectRtp(bad)).toBe('auth')
    }
    expect(inb.authFailures).toBe(3)
    expect(toHex(bytes(inb.unprotectRtp(sealed)))).toBe(toHex(rtp(1)))
  })

  test('a flipped bit in an SRTCP packet or its index word is refused and counted', () => {
    const { out, inb } = pair(suite, crypto)
    const sealed = bytes(out.protectRtcp(RTCP))
    const { aead } = SRTP_SUITES[suite]
    const tagEnd = aead ? sealed.length - 5 : sealed.length - 1
    const indexWordEnd = aead ? sealed.length - 1 : RTCP.length + 3
    for (const at of [12, tagEnd, indexWordEnd]) {
      const bad = sealed.slice()
      bad[at]! ^= 0x01
      expect(inb.unprotectRtcp(bad)).toBe('auth')
    }
    expect(inb.authFailures).toBe(3)
  })

  test('a replayed SRTP or SRTCP packet is refused and counted', () => {
    const { out, inb } = pair(suite, crypto)
    const sealed = bytes(out.protectRtp(rtp(9)))
    const control = bytes(out.protectRtcp(RTCP))
    expect(inb.unprotectRtp(sealed)).toBeInstanceOf(Uint8Array)
    expect(inb.unprotectRtp(sealed)).toBe('replay')
    expect(inb.unprotectRtcp(control)).toBeInstanceOf(Uint8Array)
    expect(inb.unprotectRtcp(control)).toBe('replay')
    expect(inb.replays).toBe(2)
    expect(inb.authFailures).toBe(0)
  })

  test('sequence numbers wrapping past 65535 move the rollover counter on both sides', () => {
    const { out, inb } = pair(suite, crypto)
    for (let seq = 65530; seq < 65536 + 70_000; seq += seq < 65546 ? 1 : 500) {
      expect(toHex(bytes(inb.unprotectRtp(bytes(out.protectRtp(rtp(seq))))))).toBe(toHex(rtp(seq)))
    }
    expect(inb.authFailures).toBe(0)
  })

  test('after sequence number 65535 the sender encrypts with rollover counter 1', () => {
    const key = generateInlineKey(suite)
    const out = new SrtpOutbound(suite, key, { crypto })
    for (const seq of [65534, 65535]) out.protectRtp(rtp(seq))
    const sealed = bytes(out.protectRtp(rtp(65536 + 2)))
    const master = decodeInlineKey(suite, key)
    const [rtpKeys, rtcpKeys] = [deriveSessionKeys(suite, master, 'rtp'), deriveSessionKeys(suite, master, 'rtcp')]
    // the expected bytes come from the runtime's crypto, whichever engine sealed
    const transform = SRTP_SUITES[suite].aead ? new GcmTransform(rtpKeys, rtcpKeys) : new AesCmTransform(rtpKeys, rtcpKeys, rtpTagBytes, rtcpTagBytes)
    const expected = new Uint8Array(sealed.length)
    expected.set(rtp(65536 + 2))
    transform.sealRtp(expected, 12, 172, 0x11223344, 65536 + 2)
    expect(toHex(sealed)).toBe(toHex(expected))
  })

  test('out-of-order packets inside the window decrypt, including one from before a wrap', () => {
    const { out, inb } = pair(suite, crypto)
    const seqs = [65530, 65531, 65532, 65533, 65534, 65535, 0, 1, 2, 3]
    const sealed = new Map(seqs.map((s) => [s, bytes(out.protectRtp(rtp(s)))]))
    for (const s of [65530, 2, 65533, 0, 65531, 3, 1, 65535, 65532, 65534]) {
      expect(toHex(bytes(inb.unprotectRtp(sealed.get(s)!)))).toBe(toHex(rtp(s)))
    }
  })

  test('a packet older than the replay window is refused as a replay', () => {
    const { out, inb } = pair(suite, crypto)
    const old = bytes(out.protectRtp(rtp(1)))
    for (let seq = 2; seq <= 200; seq++) out.protectRtp(rtp(seq))
    expect(inb.unprotectRtp(bytes(out.protectRtp(rtp(201))))).toBeInstanceOf(Uint8Array)
    expect(inb.unprotectRtp(old)).toBe('replay')
  })

  test('each SSRC has its own replay window', () => {
    const { out, inb } = pair(suite, crypto)
    for (const ssrc of [1, 2]) expect(inb.unprotectRtp(bytes(out.protectRtp(rtp(5, { ssrc }))))).toBeInstanceOf(Uint8Array)
    expect(inb.replays).toBe(0)
  })

  test('a packet under another key is refused as an authentication failure', () => {
    const sealed = bytes(pair(suite, crypto).out.protectRtp(rtp(1)))
    const other = pair(suite, crypto).inb
    expect(other.unprotectRtp(sealed)).toBe('auth')
    expect(other.authFailures).toBe(1)
  })

  test('protect and unprotect write into a buffer given for the purpose', () => {
    const { out, inb } = pair(suite, crypto)
    const wire = new Uint8Array(1500)
    const sealed = bytes(out.protectRtp(rtp(3), wire))
    expect(sealed.buffer).toBe(wire.buffer)
    const plain = new Uint8Array(1500)
    expect(bytes(inb.unprotectRtp(sealed, plain)).buffer).toBe(plain.buffer)
    expect(toHex(plain.subarray(0, 172))).toBe(toHex(rtp(3)))
  })
})
