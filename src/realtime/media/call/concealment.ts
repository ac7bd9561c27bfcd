// Packet loss concealment for codecs without their own: repeat the last good audio, fading
// to silence over `fadeMs`, so short losses are smoothed and long ones go quiet.

export class FadeConcealer {
  private last = new Int16Array(0)
  private concealedSamples = 0

  constructor(
    readonly sampleRate: number,
    readonly fadeMs = 60,
  ) {}

  /** Remembers good audio (call for every decoded frame). */
  good(pcm: Int16Array): void {
    if (this.last.length !== pcm.length) this.last = new Int16Array(pcm.length)
    this.last.set(pcm)
    this.concealedSamples = 0
  }

  /** Audio to play in place of `samples` lost samples. */
  conceal(samples: number): Int16Array {
    const out = new Int16Array(samples)
    const fadeSamples = (this.sampleRate * this.fadeMs) / 1000
    if (this.last.length === 0) return out
    for (let i = 0; i < samples; i++) {
      const gain = 1 - (this.concealedSamples + i) / fadeSamples
      if (gain <= 0) break
      out[i] = Math.round(this.last[i % this.last.length]! * gain)
    }
    this.concealedSamples += samples
    return out
  }
}
