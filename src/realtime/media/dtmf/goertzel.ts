// In-band DTMF detection with the Goertzel algorithm, for peers that send key presses as
// tones in the audio. Blocks of ~25.6 ms; a digit must hold for two blocks to count and is
// reported once per press.

import { DTMF_DIGITS, type DtmfEvent } from './rfc4733.ts'

const ROWS = [697, 770, 852, 941]
const COLS = [1209, 1336, 1477, 1633]
const KEYPAD = ['123A', '456B', '789C', '*0#D']

/** Goertzel coefficients (2 cos ω) of `freqs` at `sampleRate`. */
export const goertzelCoefficients = (freqs: readonly number[], sampleRate: number): Float64Array =>
  Float64Array.from(freqs, (f) => 2 * Math.cos((2 * Math.PI * f) / sampleRate))

/** The power of one frequency (its Goertzel coefficient) in the first `n` samples of `block`. */
export function goertzelPower(block: ArrayLike<number>, n: number, coeff: number): number {
  let s1 = 0
  let s2 = 0
  for (let i = 0; i < n; i++) {
    const s = block[i]! + coeff * s1 - s2
    s2 = s1
    s1 = s
  }
  return s1 * s1 + s2 * s2 - coeff * s1 * s2
}

export class InbandDtmfDetector {
  private readonly blockSize: number
  private readonly coeffs: Float64Array
  private readonly block: Float64Array
  private fill = 0
  private candidate = ''
  private candidateBlocks = 0
  private active = ''
  private silentBlocks = 0
  private activeBlocks = 0

  constructor(readonly sampleRate = 8000) {
    this.blockSize = Math.round(sampleRate * 0.025625)
    this.block = new Float64Array(this.blockSize)
    this.coeffs = goertzelCoefficients([...ROWS, ...COLS], sampleRate)
  }

  push(pcm: Int16Array): DtmfEvent[] {
    const out: DtmfEvent[] = []
    for (let i = 0; i < pcm.length; i++) {
      this.block[this.fill++] = pcm[i]!
      if (this.fill === this.blockSize) {
        this.fill = 0
        const ev = this.step(this.detect())
        if (ev) out.push(ev)
      }
    }
    return out
  }

  private detect(): string {
    const n = this.blockSize
    let energy = 0
    for (let i = 0; i < n; i++) energy += this.block[i]! * this.block[i]!
    if (energy / n < 100 * 100) return '' // below about -50 dBFS
    const power = new Float64Array(8)
    for (let f = 0; f < 8; f++) power[f] = goertzelPower(this.block, n, this.coeffs[f]!)
    const row = argmax(power, 0)
    const col = argmax(power, 4)
    const pr = power[row]!
    const pc = power[col]!
    // The two tones must carry most of the block's energy (a pure pair scores about 1).
    if ((pr + pc) / ((n * energy) / 2) < 0.6) return ''
    const twistDb = 10 * Math.log10(pc / pr)
    if (twistDb > 4 || twistDb < -8) return ''
    for (let f = 0; f < 8; f++) {
      if (f === row || f === col) continue
      if (power[f]! * 4 > (f < 4 ? pr : pc)) return ''
    }
    return KEYPAD[row]![col - 4]!
  }

  private step(digit: string): DtmfEvent | null {
    if (digit && digit === this.candidate) this.candidateBlocks++
    else {
      this.candidate = digit
      this.candidateBlocks = digit ? 1 : 0
    }
    if (this.active) {
      if (digit === this.active) {
        this.activeBlocks++
        this.silentBlocks = 0
      } else if (++this.silentBlocks >= 2) this.active = ''
      return null
    }
    if (this.candidateBlocks >= 2) {
      this.active = digit
      this.activeBlocks = 2
      this.silentBlocks = 0
      const blockMs = (this.blockSize / this.sampleRate) * 1000
      return { digit, durationMs: Math.round(this.activeBlocks * blockMs), source: 'inband' }
    }
    return null
  }
}

function argmax(a: Float64Array, from: number): number {
  let best = from
  for (let i = from + 1; i < from + 4; i++) if (a[i]! > a[best]!) best = i
  return best
}

export const isDtmfDigit = (s: string): boolean => s.length === 1 && DTMF_DIGITS.includes(s.toUpperCase())
