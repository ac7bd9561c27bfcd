/**
 * Whether 16 kHz audio came through a phone line. A G.711 line carries nothing above 4 kHz, so
 * once upsampled it holds next to nothing above 5.6 kHz, where wideband speech keeps its
 * fricatives (measured over four flite voices: wideband speech -13 to -54 dB above 5.6 kHz,
 * upsampled phone speech -80 to -93 dB).
 */
export type LineBand = 'phone' | 'wideband'

const TAPS = highPass(63, 5600 / 16000)
const BLOCK = 160
/** Blocks quieter than this RMS are left out: an upsampler's int16 rounding is white noise at their bottom. */
const LOUD_RMS = 300
/** 10 ms blocks of loud audio needed for a verdict. */
const MIN_LOUD_BLOCKS = 10
const PHONE_BELOW = 1e-6
/** The high band's share of the rounding noise (1/12 of a step squared, spread flat over 0-8 kHz). */
const ROUNDING_FLOOR = (1 / 12) * ((8000 - 5600) / 8000)

/** Listens to the start of an utterance (16 kHz) until it can tell the line's band. */
export class BandMeter {
  /** The last TAPS - 1 samples before the current block, then the block. */
  private readonly window = new Float64Array(TAPS.length - 1 + BLOCK)
  private filled = 0
  private loud = 0
  private total = 0
  private high = 0

  push(samples: Int16Array): void {
    const history = TAPS.length - 1
    for (const x of samples) {
      this.window[history + this.filled++] = x
      if (this.filled < BLOCK) continue
      this.block()
      this.window.copyWithin(0, BLOCK, BLOCK + history)
      this.filled = 0
    }
  }

  /** The band, or undefined while too little loud audio came to tell. */
  get band(): LineBand | undefined {
    if (this.loud < MIN_LOUD_BLOCKS) return undefined
    return this.high / this.total < PHONE_BELOW ? 'phone' : 'wideband'
  }

  private block(): void {
    const w = this.window
    const history = TAPS.length - 1
    let e = 0
    for (let n = history; n < history + BLOCK; n++) e += w[n]! * w[n]!
    if (e < LOUD_RMS * LOUD_RMS * BLOCK) return
    let h = 0
    for (let n = history; n < history + BLOCK; n++) {
      let y = 0
      for (let k = 0; k < TAPS.length; k++) y += TAPS[k]! * w[n - k]!
      h += y * y
    }
    this.loud++
    this.total += e
    this.high += Math.max(0, h - ROUNDING_FLOOR * BLOCK)
  }
}

/** A windowed-sinc (Blackman) high-pass filter; `cutoff` as a fraction of the sample rate. */
function highPass(length: number, cutoff: number): Float64Array {
  const taps = new Float64Array(length)
  const mid = (length - 1) / 2
  for (let i = 0; i < length; i++) {
    const m = i - mid
    const lowPass = m === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * m) / (Math.PI * m)
    const window = 0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (length - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (length - 1))
    taps[i] = (m === 0 ? 1 : 0) - lowPass * window
  }
  return taps
}
