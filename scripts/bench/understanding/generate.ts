// Makes the understanding corpus's audio (npm run bench:understanding:generate; the bench runs
// it itself when the cache is missing): every utterance in the eight base voices, a third of
// them in the four variant voices, each at 16 kHz (trimmed, at -24 dBFS active level) and in
// the phone band at 8 kHz; the three noise beds; SIPp's recording. Nothing is committed: the
// output goes to .cache/understanding/<key>/ and is reused while the key holds.
//   bun scripts/bench/understanding/generate.ts [--force]
import { mkdirSync, rmSync, writeFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { writeWav } from '../../../src/realtime/voice/audio.ts'
import { NOISE_KINDS } from './conditions.ts'
import { CACHE_ROOT, cacheDir, cacheKey, clipFile, GENERATOR_VERSION, type Manifest, noiseFile, readManifest } from './cache.ts'
import { loadCorpus } from './corpus.ts'
import { humanSpeech } from './human.ts'
import { scaleTo } from './mix.ts'
import { noiseBed } from './noise.ts'
import { phoneBand, speakAll, trimSilence, variantOf, WIDE_RATE } from './synth.ts'
import { BASE_VOICES, HUMAN_VOICE, VARIANT_VOICES, variantSays } from './voices.ts'

/** The callers' active speech level at 16 kHz. */
export const SPEECH_DBFS = -24

const write = (file: string, samples: Int16Array, sampleRate: number) => {
  mkdirSync(join(file, '..'), { recursive: true })
  writeFileSync(file, writeWav({ samples, sampleRate }))
}

/** The cache folder with everything in it, made now if it is missing or incomplete. */
export async function ensureAudio(opts: { force?: boolean; log?: (s: string) => void } = {}): Promise<{ dir: string; manifest: Manifest; made: boolean }> {
  const log = opts.log ?? (() => {})
  const key = cacheKey()
  const dir = cacheDir(key)
  const had = readManifest(dir)
  if (had && !opts.force) return { dir, manifest: had, made: false }
  const started = performance.now()
  // older keys' audio is not needed any more
  try {
    for (const old of readdirSync(CACHE_ROOT)) if (old !== key) rmSync(join(CACHE_ROOT, old), { recursive: true, force: true })
  } catch {}
  rmSync(dir, { recursive: true, force: true })
  const corpus = loadCorpus()
  const clips: Record<string, number> = {}
  const speechSeconds: Record<string, number> = {}
  const wideOf = new Map<string, Int16Array[]>()
  const save = async (voice: string, ids: string[], wide: Int16Array[]) => {
    const phone = await phoneBand(wide)
    ids.forEach((id, i) => {
      write(clipFile(dir, voice, id, 'wide'), wide[i]!, WIDE_RATE)
      write(clipFile(dir, voice, id, 'phone'), phone[i]!, WIDE_RATE / 2)
    })
    clips[voice] = ids.length
    speechSeconds[voice] = Math.round(wide.reduce((n, c) => n + c.length, 0) / WIDE_RATE)
  }
  for (const voice of BASE_VOICES) {
    const t = performance.now()
    const raw = await speakAll(voice, corpus.map((u) => u.text))
    const wide = raw.map((pcm) => scaleTo(trimSilence(pcm, WIDE_RATE), WIDE_RATE, SPEECH_DBFS))
    wideOf.set(voice.id, wide)
    await save(voice.id, corpus.map((u) => u.id), wide)
    log(`  ${voice.id}: ${wide.length} clips, ${speechSeconds[voice.id]} s of speech in ${((performance.now() - t) / 1000).toFixed(1)} s`)
  }
  for (const variant of VARIANT_VOICES) {
    const t = performance.now()
    const picked = corpus.map((u, i) => ({ u, i })).filter(({ u }) => variantSays(u.id))
    const base = wideOf.get(variant.of)!
    const wide = (await variantOf(variant, picked.map(({ i }) => base[i]!))).map((pcm) => scaleTo(pcm, WIDE_RATE, SPEECH_DBFS))
    await save(variant.id, picked.map(({ u }) => u.id), wide)
    log(`  ${variant.id}: ${wide.length} clips in ${((performance.now() - t) / 1000).toFixed(1)} s`)
  }
  for (const kind of NOISE_KINDS) {
    const [phone] = await phoneBand([await noiseBed(kind)])
    write(noiseFile(dir, kind), phone!, WIDE_RATE / 2)
  }
  log('  noise beds: pink, babble, street')
  const human = humanSpeech()
  write(clipFile(dir, HUMAN_VOICE, HUMAN_VOICE, 'phone'), human, WIDE_RATE / 2)
  clips[HUMAN_VOICE] = 1
  speechSeconds[HUMAN_VOICE] = Math.round(human.length / (WIDE_RATE / 2))
  const manifest: Manifest = { key, generatorVersion: GENERATOR_VERSION, generatedAt: new Date().toISOString(), seconds: Math.round((performance.now() - started) / 100) / 10, clips, speechSeconds }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1))
  return { dir, manifest, made: true }
}

if (import.meta.main) {
  const force = process.argv.includes('--force')
  console.log(`understanding audio: key ${cacheKey()}${force ? ' (forced)' : ''}`)
  const { dir, manifest, made } = await ensureAudio({ force, log: console.log })
  const total = Object.values(manifest.clips).reduce((a, b) => a + b, 0)
  console.log(made ? `made ${total} clips in ${manifest.seconds} s: ${dir}` : `up to date (made ${manifest.generatedAt} in ${manifest.seconds} s): ${dir}`)
}
