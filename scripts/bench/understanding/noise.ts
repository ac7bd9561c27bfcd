// The noise beds, 30 s each at 16 kHz, made with sox in repeatable mode (-R seeds its noise
// generators, -D leaves dither out) so every run makes the same bytes:
//   pink    sox's pinknoise
//   street  brownnoise (traffic rumble) with passing cars (low-passed pink noise swelling and
//           fading) and car horns (two square tones) at seeded times
//   babble  six other voices (espeak-ng and festival) talking at once about other things
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseWav } from '../../../src/realtime/voice/audio.ts'
import type { NoiseKind } from './conditions.ts'
import { scaleTo, seeded } from './mix.ts'
import { speakAll, WIDE_RATE } from './synth.ts'
import { BASE_VOICES } from './voices.ts'

export const BED_SECONDS = 30
const BED = BED_SECONDS * WIDE_RATE

async function sox(args: string[], dir: string, name: string): Promise<Int16Array> {
  const out = join(dir, `${name}.wav`)
  const p = Bun.spawn(['sox', '-R', '-D', '-n', '-r', String(WIDE_RATE), '-b', '16', '-c', '1', out, ...args], { stdout: 'ignore', stderr: 'pipe' })
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()])
  if (code !== 0) throw new Error(`sox ${args.join(' ')} failed: ${err.slice(0, 300)}`)
  return parseWav(readFileSync(out)).samples
}

/** Adds `clip` into `bed` at `at` samples, times `gain`. */
function addInto(bed: Float64Array, clip: Int16Array, at: number, gain = 1): void {
  for (let i = 0; i < clip.length && at + i < bed.length; i++) bed[at + i] = bed[at + i]! + clip[i]! * gain
}

const toPcm = (bed: Float64Array) => Int16Array.from(bed, (v) => Math.max(-32768, Math.min(32767, Math.round(v))))

async function street(dir: string): Promise<Int16Array> {
  const rumble = await sox(['synth', String(BED_SECONDS), 'brownnoise', 'gain', '-6'], dir, 'brown')
  const car = await sox(['synth', '2.5', 'pinknoise', 'lowpass', '900', 'fade', 'q', '1', '2.5', '1.3'], dir, 'car')
  const horn = await sox(['synth', '0.5', 'square', '415', 'synth', '0.5', 'square', 'mix', '523', 'fade', '0.02', '0.5', '0.08', 'gain', '-9'], dir, 'horn')
  const bed = Float64Array.from(rumble)
  const next = seeded(1729)
  for (let t = 0.5; t < BED_SECONDS - 3; t += 2 + next() * 4) addInto(bed, car, Math.round(t * WIDE_RATE), 0.8 + next() * 0.8)
  for (let t = 3; t < BED_SECONDS - 1; t += 5 + next() * 6) addInto(bed, horn, Math.round(t * WIDE_RATE), 0.5 + next() * 0.5)
  return toPcm(bed)
}

/** What the babble's talkers say: nothing a caller of these agents would. */
const CHATTER = [
  'The weather was lovely all week, so we went down to the river with the children.',
  'He said the match was cancelled because the pitch was flooded after the storm.',
  'I have never seen so many people at the market as there were last Sunday.',
  'She bought a new bicycle and rides it to the station every morning.',
  'The recipe needs two cups of flour, a little butter and a pinch of salt.',
  'They are painting the kitchen yellow, which I think is a brave choice.',
  'My brother moved to the coast and says the sea air suits him.',
  'We watched a film about penguins and the little ones loved it.',
  'The train was late again, so I missed the start of the concert.',
  'Our neighbour grows tomatoes in the garden and gives us a basket every summer.',
]

async function babble(): Promise<Int16Array> {
  const talkers = BASE_VOICES.filter((v) => ['espeak-us', 'espeak-gb-f3', 'espeak-us-m3', 'festival-kal', 'festival-ked', 'festival-slt'].includes(v.id))
  const bed = new Float64Array(BED)
  for (const [k, voice] of talkers.entries()) {
    // each talker says the sentences in its own order, with its own pauses
    const order = CHATTER.map((_, i) => CHATTER[(i + 3 * k) % CHATTER.length]!)
    const said = (await speakAll(voice, order)).map((c) => scaleTo(c, WIDE_RATE, -26))
    const next = seeded(100 + k)
    let at = Math.round(next() * WIDE_RATE)
    for (let i = 0; at < BED; i = (i + 1) % said.length) {
      addInto(bed, said[i]!, at)
      at += said[i]!.length + Math.round((0.1 + next() * 0.5) * WIDE_RATE)
    }
  }
  return toPcm(bed)
}

/** The noise bed of `kind` at 16 kHz, at an RMS of -30 dBFS (the mix scales it to its SNR). */
export async function noiseBed(kind: NoiseKind): Promise<Int16Array> {
  const dir = mkdtempSync(join(tmpdir(), `understanding-noise-${kind}-`))
  try {
    const bed = kind === 'pink' ? await sox(['synth', String(BED_SECONDS), 'pinknoise'], dir, 'pink') : kind === 'street' ? await street(dir) : await babble()
    return scaleRms(bed, -30)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function scaleRms(pcm: Int16Array, dbfs: number): Int16Array {
  let s = 0
  for (const v of pcm) s += v * v
  const gain = (32768 * 10 ** (dbfs / 20)) / Math.sqrt(s / pcm.length)
  return pcm.map((v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))))
}
