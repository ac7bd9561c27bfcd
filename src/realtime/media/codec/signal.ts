/** A sine tone as 16-bit PCM; `phase` in radians lets callers continue a tone across blocks. */
export function tone(freqHz: number, sampleRate: number, samples: number, amplitude = 8000, phase = 0): Int16Array {
  const out = new Int16Array(samples)
  const w = (2 * Math.PI * freqHz) / sampleRate
  for (let i = 0; i < samples; i++) out[i] = Math.round(amplitude * Math.sin(phase + w * i))
  return out
}

export function rms(pcm: Int16Array, from = 0, to = pcm.length): number {
  let sum = 0
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!
  return Math.sqrt(sum / Math.max(1, to - from))
}

/** RMS level in dB relative to 16-bit full scale. */
export function rmsDb(pcm: Int16Array, from = 0, to = pcm.length): number {
  return 20 * Math.log10(Math.max(rms(pcm, from, to), 1e-9) / 32768)
}

/** Level in dB (full scale) of one frequency in `pcm`, by a single-bin DFT over the whole block. */
export function toneLevelDb(pcm: Int16Array, freqHz: number, sampleRate: number, from = 0, to = pcm.length): number {
  const w = (2 * Math.PI * freqHz) / sampleRate
  let re = 0
  let im = 0
  for (let i = from; i < to; i++) {
    re += pcm[i]! * Math.cos(w * i)
    im -= pcm[i]! * Math.sin(w * i)
  }
  const amplitude = (2 * Math.hypot(re, im)) / (to - from)
  return 20 * Math.log10(Math.max(amplitude / Math.SQRT2, 1e-9) / 32768)
}
