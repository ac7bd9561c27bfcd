// The voice engines' view of the appliance's one resampler (media/codec's polyphase FIR):
// a streaming `Resampler` for engines that convert chunk by chunk, and a one-shot `resample`
// that removes the filter's delay so the output lines up with the input.
import { PolyphaseResampler } from '../media/codec/resample.ts'

export class Resampler {
  private readonly conv: PolyphaseResampler | undefined

  constructor(
    readonly fromHz: number,
    readonly toHz: number,
  ) {
    if (!(fromHz > 0 && toHz > 0)) throw new RangeError('sample rates must be positive')
    this.conv = fromHz === toHz ? undefined : new PolyphaseResampler(fromHz, toHz)
  }

  /** Converts the next chunk; the output trails the input by the filter's delay (a few ms). */
  push(input: Int16Array): Int16Array {
    return this.conv ? this.conv.process(input) : input
  }
}

export function resample(samples: Int16Array, fromHz: number, toHz: number): Int16Array {
  if (fromHz === toHz) return samples
  const r = new PolyphaseResampler(fromHz, toHz)
  const padded = new Int16Array(samples.length + Math.ceil(r.delaySamples) + 2)
  padded.set(samples)
  const out = r.process(padded)
  const skip = Math.round((r.delaySamples * toHz) / fromHz)
  return out.subarray(skip, skip + Math.round((samples.length * toHz) / fromHz))
}
