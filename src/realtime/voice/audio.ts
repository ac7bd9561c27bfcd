/** Mono 16-bit PCM; every engine speaks in these. */
export interface AudioFrame {
  samples: Int16Array
  sampleRate: number
}

export function durationMs(samples: number, sampleRate: number): number {
  return (samples * 1000) / sampleRate
}

/** Little-endian 16-bit PCM bytes to samples; a trailing odd byte is returned as `rest`. */
export function pcm16FromBytes(bytes: Uint8Array, carry?: Uint8Array): { samples: Int16Array; rest: Uint8Array } {
  let buf = bytes
  if (carry && carry.length > 0) {
    buf = new Uint8Array(carry.length + bytes.length)
    buf.set(carry, 0)
    buf.set(bytes, carry.length)
  }
  const n = buf.length >> 1
  const samples = new Int16Array(n)
  const view = new DataView(buf.buffer, buf.byteOffset, n * 2)
  for (let i = 0; i < n; i++) samples[i] = view.getInt16(i * 2, true)
  return { samples, rest: buf.slice(n * 2) }
}

export function pcm16ToBytes(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2)
  const view = new DataView(out.buffer)
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true)
  return out
}

export function toFloat32(samples: Int16Array, out = new Float32Array(samples.length)): Float32Array {
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768
  return out
}

/** Root-mean-square level in dBFS (-Infinity for digital silence). */
export function rmsDbfs(samples: Int16Array | Float32Array): number {
  if (samples.length === 0) return -Infinity
  const scale = samples instanceof Int16Array ? 1 / 32768 : 1
  let sum = 0
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i]! * scale
    sum += v * v
  }
  const rms = Math.sqrt(sum / samples.length)
  return rms === 0 ? -Infinity : 20 * Math.log10(rms)
}

export class WavError extends Error {}

/** Reads a RIFF/WAVE file of 16-bit mono PCM (the format flite, espeak-ng and sox write). */
export function parseWav(bytes: Uint8Array): AudioFrame {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const tag = (o: number) => String.fromCharCode(...bytes.subarray(o, o + 4))
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new WavError('not a RIFF/WAVE file')
  let offset = 12
  let sampleRate = 0
  let channels = 0
  let bits = 0
  while (offset + 8 <= bytes.length) {
    const id = tag(offset)
    let size = view.getUint32(offset + 4, true)
    const body = offset + 8
    if (id === 'fmt ') {
      if (view.getUint16(body, true) !== 1) throw new WavError('only PCM WAVE is supported')
      channels = view.getUint16(body + 2, true)
      sampleRate = view.getUint32(body + 4, true)
      bits = view.getUint16(body + 14, true)
    } else if (id === 'data') {
      if (bits !== 16 || channels !== 1) throw new WavError(`need 16-bit mono, got ${bits}-bit ${channels}-channel`)
      // writers that stream (flite to a pipe) leave the size as 0 or 0xffffffff
      if (size === 0 || body + size > bytes.length) size = bytes.length - body
      return { samples: pcm16FromBytes(bytes.subarray(body, body + size)).samples, sampleRate }
    }
    offset = body + size + (size & 1)
  }
  throw new WavError('WAVE file has no data chunk')
}

export function writeWav(frame: AudioFrame): Uint8Array {
  const data = pcm16ToBytes(frame.samples)
  const out = new Uint8Array(44 + data.length)
  const view = new DataView(out.buffer)
  const put = (o: number, s: string) => {
    for (let i = 0; i < 4; i++) out[o + i] = s.charCodeAt(i)
  }
  put(0, 'RIFF')
  view.setUint32(4, 36 + data.length, true)
  put(8, 'WAVE')
  put(12, 'fmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, 1, true)
  view.setUint32(24, frame.sampleRate, true)
  view.setUint32(28, frame.sampleRate * 2, true)
  view.setUint16(32, 2, true)
  view.setUint16(34, 16, true)
  put(36, 'data')
  view.setUint32(40, data.length, true)
  out.set(data, 44)
  return out
}

export function concatFrames(frames: AudioFrame[]): AudioFrame {
  const sampleRate = frames[0]?.sampleRate ?? 16000
  const total = frames.reduce((n, f) => n + f.samples.length, 0)
  const samples = new Int16Array(total)
  let o = 0
  for (const f of frames) {
    if (f.sampleRate !== sampleRate) throw new Error('frames of different sample rates')
    samples.set(f.samples, o)
    o += f.samples.length
  }
  return { samples, sampleRate }
}

/** A frame the caller hears as sound, not silence: what "voiced" means in turn timing (and in bench:conversation). */
export const VOICED_DBFS = -40

export function isVoiced(samples: Int16Array): boolean {
  return rmsDbfs(samples) >= VOICED_DBFS
}
