// G.711 mu-law (PCMU) and A-law (PCMA), bit-exact with the ITU-T G.191 reference implementation
// (g711.c: ulaw_compress/expand, alaw_compress/expand) on 16-bit left-justified samples.

function ulawCompress(x: number): number {
  let abs = x < 0 ? (~x >> 2) + 33 : (x >> 2) + 33
  if (abs > 0x1fff) abs = 0x1fff
  let i = abs >> 6
  let seg = 1
  while (i !== 0) {
    seg++
    i >>= 1
  }
  const code = ((8 - seg) << 4) | (0x0f - ((abs >> seg) & 0x0f))
  return x >= 0 ? code | 0x80 : code
}

function ulawExpand(code: number): number {
  const sign = code < 0x80 ? -1 : 1
  const m = ~code & 0xff
  const exponent = (m >> 4) & 0x07
  const step = 4 << (exponent + 1)
  return sign * ((0x80 << exponent) + step * (m & 0x0f) + step / 2 - 4 * 33)
}

function alawCompress(x: number): number {
  let ix = x < 0 ? ~x >> 4 : x >> 4
  if (ix > 15) {
    let exp = 1
    while (ix > 16 + 15) {
      ix >>= 1
      exp++
    }
    ix -= 16
    ix += exp << 4
  }
  if (x >= 0) ix |= 0x80
  return ix ^ 0x55
}

function alawExpand(code: number): number {
  const ix = (code ^ 0x55) & 0x7f
  const exp = ix >> 4
  let mant = ix & 0x0f
  if (exp > 0) mant += 16
  mant = (mant << 4) + 8
  if (exp > 1) mant <<= exp - 1
  return code > 127 ? mant : -mant
}

/** Decode tables (256 entries) and encode tables indexed by the 16-bit sample + 32768. */
const ULAW_DECODE = new Int16Array(256)
const ALAW_DECODE = new Int16Array(256)
const ULAW_ENCODE = new Uint8Array(65536)
const ALAW_ENCODE = new Uint8Array(65536)
for (let c = 0; c < 256; c++) {
  ULAW_DECODE[c] = ulawExpand(c)
  ALAW_DECODE[c] = alawExpand(c)
}
for (let i = 0; i < 65536; i++) {
  ULAW_ENCODE[i] = ulawCompress(i - 32768)
  ALAW_ENCODE[i] = alawCompress(i - 32768)
}

export type G711Law = 'ulaw' | 'alaw'

/** Encodes 16-bit PCM into G.711 bytes; `out` may be passed to avoid an allocation. */
export function encodeG711(law: G711Law, pcm: Int16Array, out = new Uint8Array(pcm.length)): Uint8Array {
  const table = law === 'ulaw' ? ULAW_ENCODE : ALAW_ENCODE
  const n = pcm.length
  for (let i = 0; i < n; i++) out[i] = table[pcm[i]! + 32768]!
  return out
}

/** Decodes G.711 bytes into 16-bit PCM; `out` may be passed to avoid an allocation. */
export function decodeG711(law: G711Law, bytes: Uint8Array, out = new Int16Array(bytes.length)): Int16Array {
  const table = law === 'ulaw' ? ULAW_DECODE : ALAW_DECODE
  const n = bytes.length
  for (let i = 0; i < n; i++) out[i] = table[bytes[i]!]!
  return out
}

export const encodeUlawSample = (x: number): number => ULAW_ENCODE[(x | 0) + 32768]!
export const encodeAlawSample = (x: number): number => ALAW_ENCODE[(x | 0) + 32768]!
export const decodeUlawSample = (code: number): number => ULAW_DECODE[code & 0xff]!
export const decodeAlawSample = (code: number): number => ALAW_DECODE[code & 0xff]!

/** The code each law uses for silence (positive zero). */
export const G711_SILENCE: Record<G711Law, number> = { ulaw: 0xff, alaw: 0xd5 }
