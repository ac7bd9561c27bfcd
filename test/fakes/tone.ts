/** A 16-bit mono tone: fake providers return audible, measurable audio of a plausible length. */
export function tone(durationMs: number, sampleRate: number, hz = 440, amplitude = 8000): Int16Array {
  const n = Math.round((durationMs * sampleRate) / 1000)
  const out = new Int16Array(n)
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / sampleRate))
  return out
}

/** Roughly how long a speaker takes to say `text`: 60 ms per character. */
export function speechMsFor(text: string): number {
  return Math.max(200, text.length * 60)
}

export function le16(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2)
  const v = new DataView(out.buffer)
  samples.forEach((s, i) => v.setInt16(i * 2, s, true))
  return out
}

export function chunks(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, Math.min(bytes.length, i + size)))
  return out
}
