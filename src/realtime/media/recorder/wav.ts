// 16-bit PCM WAV headers: written with zero sizes while a recording runs, fixed at the end, and
// repaired from the file length after a crash.

import { open, readdir } from 'node:fs/promises'
import { join } from 'node:path'

export const WAV_HEADER_BYTES = 44

export function wavHeader(sampleRate: number, channels: number, dataBytes: number): Uint8Array {
  const h = new Uint8Array(WAV_HEADER_BYTES)
  const v = new DataView(h.buffer)
  const ascii = (o: number, s: string) => [...s].forEach((c, i) => (h[o + i] = c.charCodeAt(0)))
  ascii(0, 'RIFF')
  v.setUint32(4, 36 + dataBytes, true)
  ascii(8, 'WAVE')
  ascii(12, 'fmt ')
  v.setUint32(16, 16, true)
  v.setUint16(20, 1, true)
  v.setUint16(22, channels, true)
  v.setUint32(24, sampleRate, true)
  v.setUint32(28, sampleRate * channels * 2, true)
  v.setUint16(32, channels * 2, true)
  v.setUint16(34, 16, true)
  ascii(36, 'data')
  v.setUint32(40, dataBytes, true)
  return h
}

export interface WavInfo {
  sampleRate: number
  channels: number
  dataBytes: number
}

/** Reads our own 44-byte header layout; null for anything else. */
export function parseWavHeader(h: Uint8Array): WavInfo | null {
  if (h.length < WAV_HEADER_BYTES) return null
  const text = (o: number) => String.fromCharCode(h[o]!, h[o + 1]!, h[o + 2]!, h[o + 3]!)
  if (text(0) !== 'RIFF' || text(8) !== 'WAVE' || text(12) !== 'fmt ' || text(36) !== 'data') return null
  const v = new DataView(h.buffer, h.byteOffset, h.byteLength)
  if (v.getUint16(20, true) !== 1 || v.getUint16(34, true) !== 16) return null
  return { channels: v.getUint16(22, true), sampleRate: v.getUint32(24, true), dataBytes: v.getUint32(40, true) }
}

/**
 * Fixes the headers of recordings a crash left unfinished: the sizes are set from the file
 * length (cut to whole sample frames). Returns the files it changed.
 */
export async function repairWavFiles(dir: string): Promise<string[]> {
  let names: string[]
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.wav'))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const repaired: string[] = []
  for (const name of names) {
    const path = join(dir, name)
    const fh = await open(path, 'r+')
    try {
      const size = (await fh.stat()).size
      const head = new Uint8Array(WAV_HEADER_BYTES)
      await fh.read(head, 0, WAV_HEADER_BYTES, 0)
      const info = parseWavHeader(head)
      if (!info) continue
      const frame = info.channels * 2
      const dataBytes = Math.floor((size - WAV_HEADER_BYTES) / frame) * frame
      const riff = new DataView(head.buffer).getUint32(4, true)
      if (info.dataBytes === dataBytes && riff === 36 + dataBytes && size === WAV_HEADER_BYTES + dataBytes) continue
      await fh.truncate(WAV_HEADER_BYTES + dataBytes)
      await fh.write(wavHeader(info.sampleRate, info.channels, dataBytes), 0, WAV_HEADER_BYTES, 0)
      repaired.push(path)
    } finally {
      await fh.close()
    }
  }
  return repaired
}
