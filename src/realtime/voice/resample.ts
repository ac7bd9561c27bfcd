// The voice engines' view of the appliance's one resampler, the media path's (media/codec:
// Speex when its wasm loads, our polyphase FIR otherwise): a streaming `Resampler` for engines
// that convert chunk by chunk, and a one-shot `resample` that removes the filter's delay so the
// output lines up with the input. scripts/bench/media-resampler.ts compares the two.
import { createResampler, type ResamplerEngine, type SampleRateConverter } from '../media/codec/resample.ts'

export class Resampler {
  private readonly conv: SampleRateConverter | undefined

  constructor(
    readonly fromHz: number,
    readonly toHz: number,
    engine?: ResamplerEngine,
  ) {
    if (!(fromHz > 0 && toHz > 0)) throw new RangeError('sample rates must be positive')
    this.conv = fromHz === toHz ? undefined : createResampler(fromHz, toHz, engine)
  }

  /** Converts the next chunk; the output trails the input by the filter's delay (a few ms). */
  push(input: Int16Array): Int16Array {
    return this.conv ? this.conv.process(input) : input
  }
}

export function resample(samples: Int16Array, fromHz: number, toHz: number, engine?: ResamplerEngine): Int16Array {
  if (fromHz === toHz) return samples
  const r = createResampler(fromHz, toHz, engine)
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
