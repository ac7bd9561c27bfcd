// Pure audio arithmetic for the caller's side: active speech level, scaling to a level, noise
// mixed at a signal-to-noise ratio, and the seeded packet-loss pattern. Everything is a function
// of its arguments, so a rerun sends the same bytes.

/** Frames of 20 ms at `rate`. */
export const frameSamples = (rate: number) => rate / 50

const rms = (pcm: ArrayLike<number>, from = 0, to = pcm.length) => {
  let sum = 0
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!
  return to > from ? Math.sqrt(sum / (to - from)) : 0
}

const dbfs = (r: number) => (r > 0 ? 20 * Math.log10(r / 32768) : -120)

/** Frames within `rangeDb` of the loudest 20 ms frame count as active (speech, not its pauses). */
const ACTIVE_RANGE_DB = 35

/**
 * The active level of speech: the RMS over its 20 ms frames within 35 dB of the loudest one, so
 * pauses and leading silence do not lower it (a simple stand-in for ITU-T P.56's active level).
 */
export function activeRms(pcm: Int16Array, rate: number): number {
  const n = frameSamples(rate)
  const levels: number[] = []
  for (let i = 0; i + n <= pcm.length; i += n) levels.push(rms(pcm, i, i + n))
  const top = Math.max(0, ...levels)
  if (top === 0) return 0
  const floor = top * 10 ** (-ACTIVE_RANGE_DB / 20)
  const active = levels.filter((l) => l >= floor)
  return Math.sqrt(active.reduce((s, l) => s + l * l, 0) / active.length)
}

export const activeDbfs = (pcm: Int16Array, rate: number) => dbfs(activeRms(pcm, rate))

const clip = (v: number) => (v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v))

/** `pcm` scaled so its active level is `targetDbfs`. */
export function scaleTo(pcm: Int16Array, rate: number, targetDbfs: number): Int16Array {
  const level = activeRms(pcm, rate)
  if (level === 0) return pcm.slice()
  const gain = (32768 * 10 ** (targetDbfs / 20)) / level
  return pcm.map((v) => clip(v * gain))
}

export interface NoiseMix {
  /** The noise bed, at the speech's rate. */
  noise: Int16Array
  /** Where in the bed the noise starts (wraps around). */
  offset: number
  snrDb: number
  /** Noise before and after the words, samples; it fades in and out over `rampSamples`. */
  leadSamples: number
  tailSamples: number
  rampSamples: number
}

/**
 * The words with noise under them: lead + words + tail samples, the noise scaled so that the
 * words' active level is `snrDb` above the noise's RMS (measured over the same span).
 */
export function mixAtSnr(speech: Int16Array, rate: number, m: NoiseMix): Int16Array {
  const total = m.leadSamples + speech.length + m.tailSamples
  const bed = new Float64Array(total)
  for (let i = 0; i < total; i++) bed[i] = m.noise[(m.offset + i) % m.noise.length]!
  const noiseRms = rms(bed)
  const speechRms = activeRms(speech, rate)
  const gain = noiseRms > 0 && speechRms > 0 ? speechRms / 10 ** (m.snrDb / 20) / noiseRms : 0
  const out = new Int16Array(total)
  for (let i = 0; i < total; i++) {
    const ramp = Math.min(1, i / m.rampSamples, (total - 1 - i) / m.rampSamples)
    const words = i >= m.leadSamples && i < m.leadSamples + speech.length ? speech[i - m.leadSamples]! : 0
    out[i] = clip(words + bed[i]! * gain * ramp)
  }
  return out
}

/** The measured SNR of `mixed` against the clean `speech` it holds at `lead` (for the tests and the report). */
export function measuredSnrDb(speech: Int16Array, mixed: Int16Array, lead: number, rate: number): number {
  const noise = new Float64Array(mixed.length)
  for (let i = 0; i < mixed.length; i++) noise[i] = mixed[i]! - (i >= lead && i < lead + speech.length ? speech[i - lead]! : 0)
  return 20 * Math.log10(activeRms(speech, rate) / rms(noise))
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Which of `packets` RTP packets the caller drops: independent losses with probability `share`, the same for the same seed. */
export function lossPattern(packets: number, share: number, seed: number): boolean[] {
  const next = seeded(seed)
  return Array.from({ length: packets }, () => next() < share)
}

/** Cuts `pcm` into 20 ms frames, the last one padded with `pad` (line noise or silence). */
export function framesOf(pcm: Int16Array, rate: number, pad: (samples: number) => Int16Array = (n) => new Int16Array(n)): Int16Array[] {
  const n = frameSamples(rate)
  const out: Int16Array[] = []
  for (let i = 0; i < pcm.length; i += n) {
    const f = pcm.slice(i, i + n)
    if (f.length === n) out.push(f)
    else {
      const full = pad(n)
      full.set(f)
      out.push(full)
    }
  }
  return out
}
