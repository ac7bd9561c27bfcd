// A voice's pitch, measured: median fundamental frequency over the voiced windows of a signal
// (normalized autocorrelation; windows below the loudness floor or without a clear period skipped).

export function medianPitchHz(samples: Int16Array, sampleRate: number, opts: { minHz?: number; maxHz?: number; floorDb?: number } = {}): number | undefined {
  const minLag = Math.floor(sampleRate / (opts.maxHz ?? 350))
  const maxLag = Math.ceil(sampleRate / (opts.minHz ?? 60))
  const win = Math.round(sampleRate * 0.04)
  const floor = 32768 * 10 ** ((opts.floorDb ?? -35) / 20)
  const found: number[] = []
  for (let start = 0; start + win + maxLag <= samples.length; start += win) {
    let energy = 0
    for (let i = start; i < start + win; i++) energy += samples[i]! * samples[i]!
    if (Math.sqrt(energy / win) < floor) continue
    let best = 0
    let bestLag = 0
    for (let lag = minLag; lag <= maxLag; lag++) {
      let num = 0
      let a = 0
      let b = 0
      for (let i = start; i < start + win; i++) {
        const x = samples[i]!
        const y = samples[i + lag]!
        num += x * y
        a += x * x
        b += y * y
      }
      const r = num / Math.sqrt(a * b || 1)
      if (r > best) {
        best = r
        bestLag = lag
      }
    }
    if (best > 0.6) found.push(sampleRate / bestLag)
  }
  if (found.length === 0) return undefined
  found.sort((x, y) => x - y)
  return found[Math.floor(found.length / 2)]
}
