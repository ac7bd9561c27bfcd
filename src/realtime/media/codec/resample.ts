// Streaming polyphase FIR resampler for rational rate changes (8/16/24/48 kHz and any pair
// whose ratio reduces to small integers). The prototype low-pass is a Kaiser-windowed sinc.

import { SpeexResampler, speexAvailable } from './speex.ts'

export interface ResamplerOptions {
  /** Passband edge as a fraction of the lower Nyquist frequency (default 0.8). */
  passband?: number
  /** Stopband attenuation in dB (default 60). */
  attenuationDb?: number
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))

function besselI0(x: number): number {
  let sum = 1
  let term = 1
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2
    sum += term
    if (term < sum * 1e-12) break
  }
  return sum
}

/**
 * Designs the prototype low-pass at `up * inRate`, centred on the lower Nyquist frequency with
 * the passband edge at `passband` of it. Centring it there makes every max(up, down)-th tap an
 * exact zero (a half-band filter for 2:1), and those taps are left out of each phase.
 */
function designPolyphase(inRate: number, outRate: number, up: number, opts: Required<ResamplerOptions>) {
  const nyquist = Math.min(inRate, outRate) / 2
  const fs = up * inRate
  const transition = 2 * (1 - opts.passband) * nyquist
  const cutoff = nyquist / fs
  const a = opts.attenuationDb
  const beta = a > 50 ? 0.1102 * (a - 8.7) : a >= 21 ? 0.5842 * (a - 21) ** 0.4 + 0.07886 * (a - 21) : 0
  let length = Math.ceil((a - 7.95) / (2.285 * ((2 * Math.PI * transition) / fs))) + 1
  if (length % 2 === 0) length++ // odd, so the centre is a tap and the sinc zeros land on taps
  const perPhase = Math.ceil(length / up)
  const mid = (length - 1) / 2
  const i0Beta = besselI0(beta)
  const dense: number[][] = Array.from({ length: up }, () => [])
  for (let i = 0; i < perPhase * up; i++) {
    let c = 0
    if (i < length) {
      const t = i - mid
      const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t)
      const r = (2 * i) / (length - 1) - 1
      c = (sinc * besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r)))) / i0Beta
      if (Math.abs(c) < 1e-9 * cutoff) c = 0
    }
    // h[phase + k*up] belongs to phase `i % up` at delay k, scaled by `up` for unity passband gain.
    dense[i % up]!.push(c * up)
  }
  // The filter is symmetric (h[i] = h[length-1-i]); for up <= 2 both taps of a pair sit in the
  // same phase, so each pair costs one multiply. A lone centre tap pairs with itself at half weight.
  const starts = new Int32Array(up + 1)
  const delaysA: number[] = []
  const delaysB: number[] = []
  const coeffs: number[] = []
  for (let p = 0; p < up; p++) {
    starts[p] = coeffs.length
    dense[p]!.forEach((c, k) => {
      if (c === 0) return
      const i = p + k * up
      const partner = length - 1 - i
      if (up <= 2) {
        if (partner < i) return
        delaysA.push(k)
        delaysB.push((partner - p) / up)
        coeffs.push(partner === i ? c / 2 : c)
      } else {
        delaysA.push(k)
        delaysB.push(k)
        coeffs.push(c / 2)
      }
    })
  }
  starts[up] = coeffs.length
  return { coeffs: Float64Array.from(coeffs), delaysA: Int32Array.from(delaysA), delaysB: Int32Array.from(delaysB), starts, perPhase }
}

export class PolyphaseResampler implements SampleRateConverter {
  readonly up: number
  readonly down: number
  private readonly coeffs: Float64Array
  private readonly delaysA: Int32Array
  private readonly delaysB: Int32Array
  private readonly starts: Int32Array
  private readonly taps: number
  private buf: Float64Array
  /** Position of the next output sample, in 1/up input-sample units, relative to the next input block. */
  private t = 0

  constructor(
    readonly inRate: number,
    readonly outRate: number,
    options: ResamplerOptions = {},
  ) {
    if (!Number.isInteger(inRate) || !Number.isInteger(outRate) || inRate <= 0 || outRate <= 0) {
      throw new RangeError(`sample rates must be positive integers in Hz, got ${inRate} -> ${outRate}`)
    }
    const g = gcd(inRate, outRate)
    this.up = outRate / g
    this.down = inRate / g
    if (this.up > 64 || this.down > 64) throw new RangeError(`unsupported rate ratio ${inRate} -> ${outRate}`)
    const { coeffs, delaysA, delaysB, starts, perPhase } = designPolyphase(inRate, outRate, this.up, {
      passband: options.passband ?? 0.8,
      attenuationDb: options.attenuationDb ?? 60,
    })
    this.coeffs = coeffs
    this.delaysA = delaysA
    this.delaysB = delaysB
    this.starts = starts
    this.taps = perPhase
    this.buf = new Float64Array(perPhase - 1 + 960)
  }

  /** Group delay in input samples, which callers may subtract when aligning streams. */
  get delaySamples(): number {
    return (this.taps * this.up - 1) / 2 / this.up
  }

  /** Resamples one block; output length follows the rate ratio, carrying fractions across blocks. */
  process(input: Int16Array): Int16Array {
    const hist = this.taps - 1
    const len = input.length
    if (this.up === 1 && this.down === 1) return input.slice()
    if (this.buf.length < hist + len) {
      const bigger = new Float64Array(hist + len)
      bigger.set(this.buf.subarray(0, hist))
      this.buf = bigger
    }
    const buf = this.buf
    for (let i = 0; i < len; i++) buf[hist + i] = input[i]!
    const up = this.up
    const down = this.down
    const coeffs = this.coeffs
    const delaysA = this.delaysA
    const delaysB = this.delaysB
    const starts = this.starts
    const count = Math.max(0, Math.ceil((len * up - this.t) / down))
    const out = new Int16Array(count)
    let t = this.t
    for (let n = 0; n < count; n++, t += down) {
      const base = (t / up) | 0
      const phase = t - base * up
      const newest = hist + base
      let acc = 0
      const end = starts[phase + 1]!
      for (let j = starts[phase]!; j < end; j++) acc += coeffs[j]! * (buf[newest - delaysA[j]!]! + buf[newest - delaysB[j]!]!)
      out[n] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc)
    }
    this.t = t - len * up
    buf.copyWithin(0, len, len + hist)
    return out
  }

  /** Forgets the signal history (for a new stream). */
  reset(): void {
    this.buf.fill(0)
    this.t = 0
  }

  processView(input: Int16Array): Int16Array {
    return this.process(input)
  }

  close(): void {}
}

export interface SampleRateConverter {
  readonly inRate: number
  readonly outRate: number
  /** Group delay in input samples: the output trails the input by this much. */
  readonly delaySamples: number
  /** Resamples one block; output length follows the rate ratio, carrying fractions across blocks. */
  process(input: Int16Array): Int16Array
  /** Like process(), but the result may be a view that is only valid until the next call. */
  processView(input: Int16Array): Int16Array
  reset(): void
  /** Frees native memory (the Speex engine); the converter is unusable afterwards. */
  close(): void
}

export type ResamplerEngine = 'speex' | 'polyphase'

/**
 * The resampler the media path uses: Speex (quality 5) when its wasm loads, else our FIR.
 * Same rate, same output lengths either way.
 */
export function createResampler(inRate: number, outRate: number, engine: ResamplerEngine = speexAvailable() ? 'speex' : 'polyphase'): SampleRateConverter {
  return engine === 'speex' ? new SpeexResampler(inRate, outRate) : new PolyphaseResampler(inRate, outRate)
}
