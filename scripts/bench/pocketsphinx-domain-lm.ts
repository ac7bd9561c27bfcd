// How far a language model of the agents' own words could take pocketsphinx on a phone line
// (issue 42's per-agent language model, not built yet): a bigram model written here from the
// knowledge-base documents and the corpus's tuning utterances, against the general en-us model,
// in the same run, over the same G.711 audio (upsampled, as calls decode it). In-domain
// questions (template routes, knowledge) of the tuning split, whose sentences the bigram holds,
// give its best case; of the held-out split, what a caller's own phrasing gets.
//   bun scripts/bench/pocketsphinx-domain-lm.ts [--voices a,b] [--limit N]
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeG711, encodeG711 } from '../../src/realtime/media/codec/g711.ts'
import { resample } from '../../src/realtime/voice/resample.ts'
import { startingMean } from '../../src/realtime/voice/stt/pocketsphinx-cmn.ts'
import { DEBIAN_MODEL_DIR, loadNative, SphinxDecoder } from '../../src/realtime/voice/stt/pocketsphinx-ffi.ts'
import { Clips } from './understanding/cache.ts'
import { CLINIC_DOCUMENTS, loadCorpus, type Split } from './understanding/corpus.ts'
import { ensureAudio } from './understanding/generate.ts'
import { normalise, sumErrors, werPercent, wordErrors } from './understanding/score.ts'

const argv = process.argv.slice(2)
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined)
const voices = (opt('--voices') ?? 'festival-kal,festival-slt,espeak-us,pico-us').split(',')
const limit = Number(opt('--limit') ?? 8)
/** Absolute discount of each seen bigram. */
const DISCOUNT = 0.5

const n = loadNative()
if (!n) throw new Error('pocketsphinx is not installed (apt install libpocketsphinx3 pocketsphinx-en-us)')
const dictionary = new Set(
  readFileSync(join(DEBIAN_MODEL_DIR, 'cmudict-en-us.dict'), 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[0]!.replace(/\(\d+\)$/, '')),
)
const corpus = loadCorpus()
const inDomain = (c: string) => c === 'knowledge' || c === 'template_route'
const documents = readdirSync(CLINIC_DOCUMENTS).map((f) => readFileSync(join(CLINIC_DOCUMENTS, f), 'utf8'))
const sentences = [...corpus.filter((u) => u.split === 'tuning').map((u) => u.text), ...documents.flatMap((d) => d.split(/[.\n?!]+/))]
  .map((s) => normalise(s).filter((w) => dictionary.has(w)))
  .filter((s) => s.length > 0)

/** A bigram model in ARPA: seen bigrams discounted, the rest backing off to an add-one unigram. */
function bigramArpa(lines: string[][]): { arpa: string; words: number; bigrams: number } {
  const uni = new Map<string, number>()
  const bi = new Map<string, Map<string, number>>()
  let tokens = 0
  for (const s of lines) {
    const ws = ['<s>', ...s, '</s>']
    ws.forEach((w, i) => {
      uni.set(w, (uni.get(w) ?? 0) + 1)
      tokens++
      if (i === 0) return
      const next = bi.get(ws[i - 1]!) ?? new Map<string, number>()
      next.set(w, (next.get(w) ?? 0) + 1)
      bi.set(ws[i - 1]!, next)
    })
  }
  const p1 = (w: string) => ((uni.get(w) ?? 0) + 1) / (tokens + uni.size)
  const log = (x: number) => Math.log10(x).toFixed(4)
  const ones: string[] = []
  const twos: string[] = []
  for (const w of uni.keys()) {
    const next = bi.get(w)
    let backoff = 0
    if (next) {
      const count = [...next.values()].reduce((a, b) => a + b, 0)
      const covered = [...next.keys()].reduce((a, x) => a + p1(x), 0)
      backoff = Math.log10((DISCOUNT * next.size) / count / (1 - covered))
      for (const [x, c] of next) twos.push(`${log((c - DISCOUNT) / count)} ${w} ${x}`)
    }
    ones.push(`${w === '<s>' ? '-99' : log(p1(w))} ${w} ${backoff.toFixed(4)}`)
  }
  const arpa = `\\data\\\nngram 1=${ones.length}\nngram 2=${twos.length}\n\n\\1-grams:\n${ones.join('\n')}\n\n\\2-grams:\n${twos.join('\n')}\n\n\\end\\\n`
  return { arpa, words: uni.size, bigrams: twos.length }
}

const dir = mkdtempSync(join(tmpdir(), 'domain-lm-'))
const lm = join(dir, 'domain.arpa')
const model = bigramArpa(sentences)
writeFileSync(lm, model.arpa)
const clips = new Clips((await ensureAudio({ log: console.log })).dir)
console.log(`pocketsphinx-domain-lm: a bigram of ${model.words} words and ${model.bigrams} bigrams from ${sentences.length} sentences; ${voices.join(', ')}, at most ${limit} utterances each`)

for (const split of ['tuning', 'heldout'] as Split[]) {
  const lines = voices.flatMap((v) =>
    corpus
      .filter((u) => u.split === split && inDomain(u.category) && clips.has(v, u.id))
      .slice(0, limit)
      .map((u) => ({ u, pcm: resample(decodeG711('ulaw', encodeG711('ulaw', clips.clip(v, u.id, 'phone'))), 8000, 16000) })),
  )
  const seconds = lines.reduce((s, l) => s + l.pcm.length / 16000, 0)
  for (const [name, file] of [['general en-us', undefined], ['domain bigram', lm]] as const) {
    const d = SphinxDecoder.create(n, 'dictation', DEBIAN_MODEL_DIR, { lm: file })
    const t = performance.now()
    const errors = lines.map((l) => {
      d.start(startingMean('phone'))
      for (let i = 0; i < l.pcm.length; i += 320) d.feed(l.pcm.subarray(i, i + 320))
      return wordErrors(l.u.text, d.finish())
    })
    d.free()
    const cpu = (performance.now() - t) / 1000 / seconds
    console.log(`${split.padEnd(7)} ${name.padEnd(14)} word errors ${werPercent(sumErrors(errors))?.toFixed(1)}% over ${lines.length} in-domain questions; CPU ${(100 * cpu).toFixed(1)}% of a core per second of speech`)
  }
}
rmSync(dir, { recursive: true, force: true })
