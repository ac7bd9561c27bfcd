// The voice engines' resampler: a streaming `Resampler` for engines that convert chunk by chunk,
// and a one-shot `resample` that removes the filter's delay so the output lines up with the input.
// Our polyphase FIR unless asked for Speex (the media path's): pocketsphinx hears phone speech
// made and brought back up with the FIR better (44.0 % of words wrong against 47.1-48.9 % with
// Speex on either side, scripts/bench/voice-resampler-line.ts), although Speex rejects aliases
// far better when speech goes down to 8 kHz (scripts/bench/media-resampler.ts).
import { createResampler, type ResamplerEngine, type SampleRateConverter } from '../media/codec/resample.ts'

export class Resampler {
  private readonly conv: SampleRateConverter | undefined

  constructor(
    readonly fromHz: number,
    readonly toHz: number,
    engine?: ResamplerEngine,
  ) {
    if (!(fromHz > 0 && toHz > 0)) throw new RangeError('sample rates must be positive')
    this.conv = fromHz === toHz ? undefined : createResampler(fromHz, toHz, engine ?? 'polyphase')
  }

  /** Converts the next chunk; the output trails the input by the filter's delay (a few ms). */
  push(input: Int16Array): Int16Array {
    return this.conv ? this.conv.process(input) : input
  }
}

export function resample(samples: Int16Array, fromHz: number, toHz: number, engine?: ResamplerEngine): Int16Array {
  if (fromHz === toHz) return samples
  const r = createResampler(fromHz, toHz, engine ?? 'polyphase')
  try {
    const padded = new Int16Array(samples.length + Math.ceil(r.delaySamples) + 2)
    padded.set(samples)
    const out = r.process(padded)
    const skip = Math.round((r.delaySamples * toHz) / fromHz)
    return out.subarray(skip, skip + Math.round((samples.length * toHz) / fromHz))
  } finally {
    r.close()
  }
}
