import { describe, expect, test } from 'bun:test'
import { decodeG711, encodeG711 } from '../../../../src/realtime/media/codec/index.ts'

// Segment end points straight from ITU-T G.711 Table 2a (mu-law, 14-bit units) and
// Table 1a (A-law, 13-bit units); the quantiser and decoder outputs below are read off them.
const ULAW_EDGES = [-1, 31, 95, 223, 479, 991, 2015, 4063, 8159]
const ALAW_EDGES = [0, 32, 64, 128, 256, 512, 1024, 2048, 4096]
const ALAW_STEPS = [2, 2, 4, 8, 16, 32, 64, 128]

function tableUlaw(x: number): number {
  const neg = x < 0
  const m = neg ? (-x - 1) >> 2 : x >> 2
  let s = 0
  while (s < 7 && m >= ULAW_EDGES[s + 1]!) s++
  const q = Math.min(15, Math.floor((m - ULAW_EDGES[s]!) / 2 ** (s + 1)))
  return (neg ? 0 : 0x80) | ((7 - s) << 4) | (15 - q)
}
function tableUlawOutput(code: number): number {
  const s = 7 - ((code >> 4) & 7)
  const q = 15 - (code & 15)
  const step = 2 ** (s + 1)
  return (code & 0x80 ? 1 : -1) * (ULAW_EDGES[s]! + step * q + step / 2) * 4
}
function tableAlaw(x: number): number {
  const neg = x < 0
  const m = neg ? (-x - 1) >> 3 : x >> 3
  let s = 0
  while (s < 7 && m >= ALAW_EDGES[s + 1]!) s++
  const q = Math.min(15, Math.floor((m - ALAW_EDGES[s]!) / ALAW_STEPS[s]!))
  return ((neg ? 0 : 0x80) | (s << 4) | q) ^ 0x55
}
function tableAlawOutput(code: number): number {
  const c = code ^ 0x55
  const s = (c >> 4) & 7
  const q = c & 15
  return (c & 0x80 ? 1 : -1) * (ALAW_EDGES[s]! + ALAW_STEPS[s]! * q + ALAW_STEPS[s]! / 2) * 8
}

const allSamples = Int16Array.from({ length: 65536 }, (_, i) => i - 32768)
const allCodes = Uint8Array.from({ length: 256 }, (_, i) => i)

describe('G.711', () => {
  test('every 16-bit sample encodes to the code the G.711 tables give, both laws', () => {
    const u = encodeG711('ulaw', allSamples)
    const a = encodeG711('alaw', allSamples)
    let uBad = 0
    let aBad = 0
    for (let i = 0; i < 65536; i++) {
      if (u[i] !== tableUlaw(allSamples[i]!)) uBad++
      if (a[i] !== tableAlaw(allSamples[i]!)) aBad++
    }
    expect({ uBad, aBad }).toEqual({ uBad: 0, aBad: 0 })
  })

  test('every code decodes to the decoder output value of the G.711 tables', () => {
    const u = decodeG711('ulaw', allCodes)
    const a = decodeG711('alaw', allCodes)
    for (let c = 0; c < 256; c++) {
      expect(a[c]).toBe(tableAlawOutput(c))
      // 0x7f is mu-law's negative zero: the table gives -0, which is 0 in 16-bit PCM.
      expect(u[c]).toBe(c === 0x7f ? 0 : tableUlawOutput(c))
    }
  })

  test('all 256 A-law codes decode and re-encode exactly', () => {
    expect([...encodeG711('alaw', decodeG711('alaw', allCodes))]).toEqual([...allCodes])
  })

  test('all mu-law codes decode and re-encode exactly except negative zero, which becomes positive zero', () => {
    const again = encodeG711('ulaw', decodeG711('ulaw', allCodes))
    const expected = [...allCodes]
    expected[0x7f] = 0xff
    expect([...again]).toEqual(expected)
  })

  test('a 0 dBm0 1 kHz sine encodes to the ITU-T G.711 digital milliwatt sequence', () => {
    // G.711 Tables 5 and 6: the digital milliwatt, eight bytes repeated.
    const dmwUlaw = [0x1e, 0x0b, 0x0b, 0x1e, 0x9e, 0x8b, 0x8b, 0x9e]
    const dmwAlaw = [0x34, 0x21, 0x21, 0x34, 0xb4, 0xa1, 0xa1, 0xb4]
    // 0 dBm0 peak: mu-law full scale (8159 in 14 bits) is +3.17 dBm0, A-law (4096 in 13 bits) +3.14 dBm0.
    const sine = (peak: number) =>
      Int16Array.from({ length: 8 }, (_, k) => Math.round(-peak * Math.sin(Math.PI / 8 + (k * Math.PI) / 4)))
    expect([...encodeG711('ulaw', sine((8159 * 4) / 10 ** (3.17 / 20)))]).toEqual(dmwUlaw)
    expect([...encodeG711('alaw', sine((4096 * 8) / 10 ** (3.14 / 20)))]).toEqual(dmwAlaw)
  })

  test('silence and full scale map to the well-known codes', () => {
    expect([...encodeG711('ulaw', Int16Array.of(0, 32767, -32768))]).toEqual([0xff, 0x80, 0x00])
    expect([...encodeG711('alaw', Int16Array.of(0, 32767, -32768))]).toEqual([0xd5, 0xaa, 0x2a])
  })
})
