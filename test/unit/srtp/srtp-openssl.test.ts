// The libcrypto engine (openssl.ts) against the runtime's crypto: the same bytes both ways, buffers
// that are views into larger ones, and ranges outside a buffer refused before any native call.
import { describe, expect, test } from 'bun:test'
import { defaultSrtpCrypto, generateInlineKey, SRTP_SUITES, SrtpInbound, SrtpOutbound, type SrtpCrypto, type SrtpSuite } from '../../../src/realtime/srtp/index.ts'
import { libcrypto, OpenSslCmStream, OpenSslGcmStream } from '../../../src/realtime/srtp/openssl.ts'
import { AesCmTransform } from '../../../src/realtime/srtp/cm.ts'
import { GcmTransform } from '../../../src/realtime/srtp/gcm.ts'
import { serializeRtp } from '../../../src/realtime/media/rtp/index.ts'

const SUITES = Object.keys(SRTP_SUITES) as SrtpSuite[]
const toHex = (b: Uint8Array | string) => (typeof b === 'string' ? b : Buffer.from(b).toString('hex'))
const RTCP = Uint8Array.from(Buffer.from('81c90007112233445566778800000001000000020000000300000000' + '00000000', 'hex'))

function rtp(seq: number): Uint8Array {
  const payload = new Uint8Array(160).map((_, i) => (i * 13 + seq) & 0xff)
  return serializeRtp({ marker: false, payloadType: 0, sequenceNumber: seq & 0xffff, timestamp: seq * 160, ssrc: 0xcafe, csrcs: [], payload })
}

function bytes(r: Uint8Array | string): Uint8Array {
  if (typeof r === 'string') throw new Error(`refused: ${r}`)
  return r
}

const keys = () => ({ encryption: crypto.getRandomValues(new Uint8Array(16)), salt: crypto.getRandomValues(new Uint8Array(14)), auth: crypto.getRandomValues(new Uint8Array(20)) })

test('libcrypto is the default engine where it loads, and a context runs on the engine it was given', () => {
  expect(libcrypto()).not.toBeNull()
  expect(defaultSrtpCrypto()).toBe('openssl')
  for (const suite of SUITES) {
    const key = generateInlineKey(suite)
    expect(new SrtpOutbound(suite, key).crypto).toBe('openssl')
    expect(new SrtpInbound(suite, key).crypto).toBe('openssl')
    for (const crypto of ['openssl', 'builtin'] as const) {
      expect(new SrtpOutbound(suite, key, { crypto }).crypto).toBe(crypto)
      expect(new SrtpInbound(suite, key, { crypto }).crypto).toBe(crypto)
    }
  }
})

describe('indices past 2^32 (a rollover counter of 65536 and more) go into the IV on both engines alike', () => {
  const rtpAt = (index: number, tag: number) => {
    const buf = new Uint8Array(172 + tag)
    buf.set(rtp(index & 0xffff))
    return buf
  }

  const cm = () => {
    const k = keys()
    return { tag: 10, ours: new AesCmTransform(k, k, 10, 10, (x) => new OpenSslCmStream(libcrypto()!, x)), theirs: new AesCmTransform(k, k, 10, 10) }
  }
  const gcm = () => {
    const k = { ...keys(), salt: crypto.getRandomValues(new Uint8Array(12)), auth: new Uint8Array(0) }
    return { tag: 16, ours: new GcmTransform(k, k, (x) => new OpenSslGcmStream(libcrypto()!, x)), theirs: new GcmTransform(k, k) }
  }

  test.each([
    ['AES-CM', cm],
    ['AES-GCM', gcm],
  ] as const)('%s', (_, make) => {
    const { tag, ours, theirs } = make()
    const high = 2 ** 40 + 5
    const [a, b, low] = [rtpAt(high, tag), rtpAt(high, tag), rtpAt(5, tag)]
    ours.sealRtp(a, 12, 172, 0xcafe, high)
    theirs.sealRtp(b, 12, 172, 0xcafe, high)
    ours.sealRtp(low, 12, 172, 0xcafe, 5)
    expect(toHex(a)).toBe(toHex(b))
    expect(toHex(a.subarray(12, 172))).not.toBe(toHex(low.subarray(12, 172)))
    expect(ours.openRtp(b, 12, 172, 0xcafe, high)).toBe(true)
    expect(toHex(b.subarray(0, 172))).toBe(toHex(rtp(5)))
  })
})

describe.each(SUITES)('%s', (suite) => {
  const crossings: [SrtpCrypto, SrtpCrypto][] = [
    ['openssl', 'builtin'],
    ['builtin', 'openssl'],
  ]

  test.each(crossings)('what %s seals, %s opens, across a rollover of the sequence number, RTP and SRTCP', (sealer, opener) => {
    const key = generateInlineKey(suite)
    const out = new SrtpOutbound(suite, key, { crypto: sealer })
    const inb = new SrtpInbound(suite, key, { crypto: opener })
    for (let seq = 65530; seq < 65540; seq++) expect(toHex(bytes(inb.unprotectRtp(bytes(out.protectRtp(rtp(seq))))))).toBe(toHex(rtp(seq)))
    for (let i = 0; i < 3; i++) expect(toHex(bytes(inb.unprotectRtcp(bytes(out.protectRtcp(RTCP)))))).toBe(toHex(RTCP))
    expect(inb.authFailures + inb.replays + inb.malformed).toBe(0)
  })

  test('a packet that is a view into a larger buffer is sealed and opened where it lies', () => {
    const key = generateInlineKey(suite)
    const out = new SrtpOutbound(suite, key, { crypto: 'openssl' })
    const inb = new SrtpInbound(suite, key, { crypto: 'openssl' })
    const sealed = bytes(out.protectRtp(rtp(9)))
    const backing = new Uint8Array(37 + sealed.length + 64).fill(0xee)
    backing.set(sealed, 37)
    const view = backing.subarray(37, 37 + sealed.length)
    const length = inb.unprotectRtpInPlace(view)
    expect(length).toBe(172)
    expect(toHex(view.subarray(0, 172))).toBe(toHex(rtp(9)))
    expect(toHex(backing.subarray(0, 37))).toBe('ee'.repeat(37))
    expect(toHex(backing.subarray(37 + sealed.length))).toBe('ee'.repeat(64))
  })

  test('a packet refused for its tag is left as it came, so an older key can still try it', () => {
    const sealed = bytes(new SrtpOutbound(suite, generateInlineKey(suite), { crypto: 'openssl' }).protectRtp(rtp(4)))
    const copy = sealed.slice()
    expect(new SrtpInbound(suite, generateInlineKey(suite), { crypto: 'openssl' }).unprotectRtpInPlace(sealed)).toBe('auth')
    expect(toHex(sealed)).toBe(toHex(copy))
  })
})

describe('ranges outside the buffer, and keys or IVs of the wrong length, are refused before any native call', () => {
  const lib = () => libcrypto()!

  test('a session key or salt of the wrong length, or a GCM IV that is not 12 bytes, throws', () => {
    expect(() => new OpenSslCmStream(lib(), { ...keys(), encryption: new Uint8Array(15) })).toThrow(RangeError)
    expect(() => new OpenSslCmStream(lib(), { ...keys(), salt: new Uint8Array(12) })).toThrow(RangeError)
    expect(() => new OpenSslGcmStream(lib(), { ...keys(), encryption: new Uint8Array(0) })).toThrow(RangeError)
    const gcm = new OpenSslGcmStream(lib(), keys())
    const buf = new Uint8Array(64)
    expect(() => gcm.seal(buf, 12, 40, new Uint8Array(16), 12)).toThrow(RangeError)
    expect(() => gcm.open(buf, 12, 40, new Uint8Array(8), 12)).toThrow(RangeError)
  })

  test('AES-CM: a keystream or tag past the end throws and leaves the bytes alone', () => {
    const stream = new OpenSslCmStream(lib(), keys())
    const buf = new Uint8Array(40).fill(7)
    expect(() => stream.crypt(buf, 12, 41, 1, 1)).toThrow(RangeError)
    expect(() => stream.crypt(buf, 20, 12, 1, 1)).toThrow(RangeError)
    expect(() => stream.macOfReceived(buf, 41, 0)).toThrow(RangeError)
    expect(() => stream.mac(buf, -1)).toThrow(RangeError)
    expect(toHex(buf)).toBe('07'.repeat(40))
  })

  test('AES-GCM: no room for the tag, or associated data past the end, throws', () => {
    const stream = new OpenSslGcmStream(lib(), keys())
    const buf = new Uint8Array(40).fill(7)
    const iv = new Uint8Array(12)
    expect(() => stream.seal(buf, 12, 30, iv, 12)).toThrow(RangeError)
    expect(() => stream.open(buf, 12, 30, iv, 12)).toThrow(RangeError)
    expect(() => stream.seal(buf, 12, 24, iv, 41)).toThrow(RangeError)
    expect(toHex(buf)).toBe('07'.repeat(40))
  })
})
