// Where the generated audio lives: .cache/understanding/<key>/ (gitignored), the key a hash of
// the corpus, the voices, the noise and this generator's version, so the audio is made again
// only when one of them changes. manifest.json is written last: a folder without it is
// incomplete and is made again.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseWav } from '../../../src/realtime/voice/audio.ts'
import { NOISE_KINDS, type NoiseKind } from './conditions.ts'
import { CORPUS_FILE } from './corpus.ts'
import { PICO_LANG_DIR } from './pico.ts'
import { VOICES } from './voices.ts'

/** Bump when the generated audio changes for the same corpus and voices. */
export const GENERATOR_VERSION = 1
export const CACHE_ROOT = process.env.UNDERSTANDING_CACHE ?? join(import.meta.dir, '../../../.cache/understanding')

export function cacheKey(): string {
  const h = createHash('sha256')
  h.update(`generator ${GENERATOR_VERSION}\n`)
  h.update(readFileSync(CORPUS_FILE))
  h.update(JSON.stringify({ VOICES, NOISE_KINDS }))
  for (const f of readdirSync(PICO_LANG_DIR).sort()) h.update(`${f} ${statSync(join(PICO_LANG_DIR, f)).size}\n`)
  return h.digest('hex').slice(0, 16)
}

export const cacheDir = (key = cacheKey()) => join(CACHE_ROOT, key)

export interface Manifest {
  key: string
  generatorVersion: number
  generatedAt: string
  /** Wall time of the generation, s. */
  seconds: number
  /** Clips per voice. */
  clips: Record<string, number>
  /** Seconds of speech per voice (16 kHz clips). */
  speechSeconds: Record<string, number>
}

export function readManifest(dir = cacheDir()): Manifest | undefined {
  const file = join(dir, 'manifest.json')
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Manifest) : undefined
}

export const clipFile = (dir: string, voice: string, utterance: string, band: 'wide' | 'phone') => join(dir, 'clips', voice, `${utterance}.${band}.wav`)
export const noiseFile = (dir: string, kind: NoiseKind) => join(dir, 'noise', `${kind}.phone.wav`)

/** The generated audio, read on demand. */
export class Clips {
  constructor(readonly dir: string) {}

  has(voice: string, utterance: string): boolean {
    return existsSync(clipFile(this.dir, voice, utterance, 'phone'))
  }

  /** 16 kHz (wide) or 8 kHz phone-band PCM of one utterance in one voice. */
  clip(voice: string, utterance: string, band: 'wide' | 'phone'): Int16Array {
    return parseWav(readFileSync(clipFile(this.dir, voice, utterance, band))).samples
  }

  private readonly beds = new Map<NoiseKind, Int16Array>()
  noise(kind: NoiseKind): Int16Array {
    let bed = this.beds.get(kind)
    if (!bed) this.beds.set(kind, (bed = parseWav(readFileSync(noiseFile(this.dir, kind))).samples))
    return bed
  }
}
