// pocketsphinx on a phone line: the phone front end (8 kHz features matched to the line's band,
// PHONE_FRONT_END) against upsampling the line to the en-us model's 16 kHz front end, in the same
// run, over the same G.711 audio: word error rate, CPU per second of speech. The decoder is driven
// directly (no calls), so the front end is all that differs. Also prints each front end's
// cepstral mean over the tuning utterances (where an utterance's normalisation should start).
// Measured 2026-12-07, 48 utterances of 6 voices: upsampled 65.3 % of words wrong, the phone
// front end 98.7 % (95-101 % for bands 130-3800 Hz): the en-us model is trained on 16 kHz features.
// Audio: the understanding corpus (bench:understanding makes it at first run), mu-law coded.
//   bun scripts/bench/pocketsphinx-frontend.ts [--voices a,b] [--limit N] [--split tuning|heldout|all] [--variants]
import { decodeG711, encodeG711 } from '../../src/realtime/media/codec/g711.ts'
import { resample } from '../../src/realtime/voice/resample.ts'
import { PRIOR_FRAMES, startingMean } from '../../src/realtime/voice/stt/pocketsphinx-cmn.ts'
import { DEBIAN_MODEL_DIR, type FrontEnd, loadNative, PHONE_BAND_HZ, PHONE_FRONT_END, SphinxDecoder } from '../../src/realtime/voice/stt/pocketsphinx-ffi.ts'
import { Clips } from './understanding/cache.ts'
import { loadCorpus } from './understanding/corpus.ts'
import { ensureAudio } from './understanding/generate.ts'
import { errorsOf, sumErrors, werPercent, wordErrors, type WordErrors } from './understanding/score.ts'

const argv = process.argv.slice(2)
const opt = (name: string) => {
  const i = argv.indexOf(name)
  return i >= 0 ? argv[i + 1] : undefined
}
const voices = (opt('--voices') ?? 'festival-kal,festival-slt,espeak-us,espeak-gb-f3,pico-us,pico-gb').split(',')
const limit = Number(opt('--limit') ?? 20)
const split = opt('--split') ?? 'all'

const n = loadNative()
if (!n) throw new Error('pocketsphinx is not installed (apt install libpocketsphinx3 pocketsphinx-en-us)')
const audio = await ensureAudio({ log: console.log })
const clips = new Clips(audio.dir)
const utterances = loadCorpus().filter((u) => split === 'all' || u.split === split)

/** Where a phone-front-end utterance's cepstral mean starts: this bench's own figure over the tuning utterances (200-3500 Hz). */
const PHONE_FRONT_END_MEAN = [48.72, 3.1, 1.71, -4.62, -4.3, -10.03, -11.02, -4.04, -9.54, -6.04, -5.55, -7.22, -2.57]

interface Setup {
  name: string
  frontEnd: FrontEnd
  band?: { lowerf: number; upperf: number }
}
const SETUPS: Setup[] = [
  { name: 'upsampled to 16 kHz (before)', frontEnd: 'wideband' },
  { name: `phone front end (${PHONE_FRONT_END.join(' ')}, band ${PHONE_BAND_HZ.lowerf}-${PHONE_BAND_HZ.upperf} Hz)`, frontEnd: 'phone' },
]
if (argv.includes('--variants')) {
  for (const [lo, hi] of [[130, 3400], [300, 3400], [133, 3800], [200, 3800]]) {
    SETUPS.push({ name: `phone front end, band ${lo}-${hi} Hz`, frontEnd: 'phone', band: { lowerf: lo!, upperf: hi! } })
  }
}

/** Each voice's first `limit` utterances, through a mu-law line at 8 kHz. */
const lines = voices.flatMap((voice) =>
  utterances
    .filter((u) => clips.has(voice, u.id))
    .slice(0, limit)
    .map((u) => ({ voice, u, pcm8: decodeG711('ulaw', encodeG711('ulaw', clips.clip(voice, u.id, 'phone'))) })),
)
const speechSec = lines.reduce((s, l) => s + l.pcm8.length / 8000, 0)
console.log(`pocketsphinx-frontend: ${lines.length} utterances (${voices.join(', ')}; split ${split}; at most ${limit} each), ${speechSec.toFixed(0)} s of G.711 speech`)

for (const setup of SETUPS) {
  const d = SphinxDecoder.create(n, 'dictation', DEBIAN_MODEL_DIR, { frontEnd: setup.frontEnd, band: setup.band })
  const rate = setup.frontEnd === 'phone' ? 8000 : 16000
  const byVoice = new Map<string, WordErrors[]>()
  const means: Float32Array[] = []
  let cpuMs = 0
  for (const l of lines) {
    const pcm = rate === 8000 ? l.pcm8 : resample(l.pcm8, 8000, 16000)
    const t = performance.now()
    d.start(setup.frontEnd === 'phone' ? { mean: new Float32Array(PHONE_FRONT_END_MEAN), frames: PRIOR_FRAMES } : startingMean('phone'))
    for (let i = 0; i < pcm.length; i += rate / 50) d.feed(pcm.subarray(i, i + rate / 50))
    const heard = d.finish()
    cpuMs += performance.now() - t
    const m = d.mean()
    if (m && l.u.split === 'tuning') means.push(m)
    const e = wordErrors(l.u.text, heard)
    byVoice.set(l.voice, [...(byVoice.get(l.voice) ?? []), e])
  }
  d.free()
  const all = sumErrors([...byVoice.values()].flat())
  const per = [...byVoice].map(([v, es]) => `${v} ${werPercent(sumErrors(es))?.toFixed(1)}%`).join(', ')
  console.log(`\n${setup.name}\n  word errors ${werPercent(all)?.toFixed(1)}% (${errorsOf(all)}/${all.ref}); ${per}`)
  console.log(`  CPU ${((100 * cpuMs) / 1000 / speechSec).toFixed(1)}% of a core per second of speech`)
  if (means.length) {
    const avg = new Array(13).fill(0).map((_, k) => means.reduce((s, m) => s + m[k]!, 0) / means.length)
    console.log(`  cepstral mean over ${means.length} tuning utterances: [${avg.map((x) => x.toFixed(2)).join(', ')}]`)
  }
}
