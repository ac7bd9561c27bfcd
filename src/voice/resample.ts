/**
 * Streaming windowed-sinc resampler for mono 16-bit PCM. The low-pass cut-off sits at the lower
 * of the two Nyquist rates so downsampling (24 kHz -> 8 kHz) does not alias. Keeps the tail of
 * each chunk so consecutive chunks join without clicks.
 */
export class Resampler {
  private readonly step: number
  private readonly cutoff: number
  /** Half the filter length, in input samples. */
  readonly half: number
  private history: Float32Array = new Float32Array(0)
  /** Position of the next output sample, in input samples, relative to history[0]. */
  private pos: number

  constructor(
    readonly fromHz: number,
    readonly toHz: number,
    taps = 16,
  ) {
    if (!(fromHz > 0 && toHz > 0)) throw new RangeError('sample rates must be positive')
    this.step = fromHz / toHz
    this.cutoff = Math.min(1, toHz / fromHz)
    this.half = Math.ceil(taps / this.cutoff / 2)
    this.pos = this.half
    this.history = new Float32Array(this.half)
  }

  /** Normalized filter taps for one fractional phase; rational ratios reuse a few phases. */
  private readonly kernels = new Map<number, Float32Array>()

  private kernel(frac: number): Float32Array {
    const key = Math.round(frac * 8192)
    let taps = this.kernels.get(key)
    if (taps) return taps
    const f = key / 8192
    const half = this.half
    taps = new Float32Array(2 * half)
    let norm = 0
    for (let k = -half + 1; k <= half; k++) {
      const x = k - f
      const w = 0.5 + 0.5 * Math.cos((Math.PI * x) / (half + 1))
      const s = x === 0 ? this.cutoff : Math.sin(Math.PI * this.cutoff * x) / (Math.PI * x)
      taps[k + half - 1] = s * w
      norm += s * w
    }
    for (let i = 0; i < taps.length; i++) taps[i] = taps[i]! / norm
    if (this.kernels.size < 8192) this.kernels.set(key, taps)
    return taps
  }

  push(input: Int16Array): Int16Array {
    if (this.fromHz === this.toHz) return input
    const buf = new Float32Array(this.history.length + input.length)
    buf.set(this.history, 0)
    for (let i = 0; i < input.length; i++) buf[this.history.length + i] = input[i]!
    const out = new Int16Array(Math.max(0, Math.ceil((buf.length - this.half - this.pos) / this.step) + 1))
    let n = 0
    const half = this.half
    while (this.pos + half < buf.length) {
      const center = Math.floor(this.pos)
      const taps = this.kernel(this.pos - center)
      let acc = 0
      const base = center - half + 1
      for (let k = 0; k < taps.length; k++) acc += buf[base + k]! * taps[k]!
      const v = Math.round(acc)
      out[n++] = v > 32767 ? 32767 : v < -32768 ? -32768 : v
      this.pos += this.step
    }
    const keepFrom = Math.max(0, Math.floor(this.pos) - half)
    this.history = buf.slice(keepFrom)
    this.pos -= keepFrom
    return out.subarray(0, n)
  }
}

export function resample(samples: Int16Array, fromHz: number, toHz: number): Int16Array {
  if (fromHz === toHz) return samples
  const r = new Resampler(fromHz, toHz)
  // flush the filter's look-ahead with silence so the last input samples come out
  const padded = new Int16Array(samples.length + Math.ceil(r.half * 2 * Math.max(1, fromHz / toHz)))
  padded.set(samples)
  const out = r.push(padded)
  return out.subarray(0, Math.round((samples.length * toHz) / fromHz))
}
