// Streaming polyphase FIR resampler for rational rate changes (8/16/24/48 kHz and any pair
// whose ratio reduces to small integers). The prototype low-pass is a Kaiser-windowed sinc.

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

/** Designs the prototype filter at `up * inRate` and lays it out phase-major with gain `up`. */
function designPolyphase(inRate: number, outRate: number, up: number, opts: Required<ResamplerOptions>) {
  const nyquist = Math.min(inRate, outRate) / 2
  const fs = up * inRate
  const passEdge = opts.passband * nyquist
  const transition = nyquist - passEdge
  const cutoff = (passEdge + nyquist) / 2 / fs
  const a = opts.attenuationDb
  const beta = a > 50 ? 0.1102 * (a - 8.7) : a >= 21 ? 0.5842 * (a - 21) ** 0.4 + 0.07886 * (a - 21) : 0
  const minTaps = Math.ceil((a - 7.95) / (2.285 * ((2 * Math.PI * transition) / fs))) + 1
  const perPhase = Math.ceil(minTaps / up)
  const n = perPhase * up
  const mid = (n - 1) / 2
  const i0Beta = besselI0(beta)
  const coeffs = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    const t = i - mid
    const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t)
    const r = (2 * i) / (n - 1) - 1
    const window = besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / i0Beta
    // h[phase + k*up] stored at [phase*perPhase + k], scaled by `up` to keep unity passband gain.
    coeffs[(i % up) * perPhase + Math.floor(i / up)] = sinc * window * up
  }
  return { coeffs, perPhase }
}

export class Resampler {
  readonly up: number
  readonly down: number
  private readonly coeffs: Float32Array
  private readonly taps: number
  private buf: Float32Array
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
    const { coeffs, perPhase } = designPolyphase(inRate, outRate, this.up, {
      passband: options.passband ?? 0.8,
      attenuationDb: options.attenuationDb ?? 60,
    })
    this.coeffs = coeffs
    this.taps = perPhase
    this.buf = new Float32Array(perPhase - 1 + 960)
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
      const bigger = new Float32Array(hist + len)
      bigger.set(this.buf.subarray(0, hist))
      this.buf = bigger
    }
    const buf = this.buf
    for (let i = 0; i < len; i++) buf[hist + i] = input[i]!
    const up = this.up
    const down = this.down
    const taps = this.taps
    const coeffs = this.coeffs
    const count = Math.max(0, Math.ceil((len * up - this.t) / down))
    const out = new Int16Array(count)
    let t = this.t
    for (let n = 0; n < count; n++, t += down) {
      const base = Math.floor(t / up)
      const phaseOffset = (t - base * up) * taps
      const newest = hist + base
      let acc = 0
      for (let k = 0; k < taps; k++) acc += coeffs[phaseOffset + k]! * buf[newest - k]!
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
}
