import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
let lastMs = 0
let seq = 0

/**
 * Opaque, time-ordered identifiers (`ws_01jd...`): 10 chars of millisecond time, 4 of a
 * per-millisecond sequence and 12 random. Sorting by id sorts by creation within a process.
 */
export function newId(prefix: string): string {
  const now = Date.now()
  seq = now === lastMs ? seq + 1 : 0
  lastMs = now
  let out = ''
  let t = now
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out
    t = Math.floor(t / 32)
  }
  let s = seq
  let seqPart = ''
  for (let i = 0; i < 4; i++) {
    seqPart = ALPHABET[s % 32] + seqPart
    s = Math.floor(s / 32)
  }
  const rnd = randomBytes(12)
  let rand = ''
  for (const b of rnd) rand += ALPHABET[b % 32]
  return `${prefix}_${out}${seqPart}${rand}`
}

export const nowIso = (): string => new Date().toISOString()
