// How far a language model of the agents' own words takes pocketsphinx on a phone line (issue
// 42): a bigram of the knowledge-base documents and the corpus's tuning utterances alone in place
// of en-us, and the agent's model as stt/agent-lm builds it, mixed with en-us at each general
// share given, against the general model, in the same run, over the same G.711 audio
// (upsampled, as calls decode it). In-domain
// questions (template routes, knowledge) of the tuning split, whose sentences the bigram holds,
// give its best case; of the held-out split, what a caller's own phrasing gets.
//   bun scripts/bench/pocketsphinx-domain-lm.ts [--voices a,b] [--limit N] [--general-weights 0.5,0.7]
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeG711, encodeG711 } from '../../src/realtime/media/codec/g711.ts'
import { resample } from '../../src/realtime/voice/resample.ts'
import { startingMean } from '../../src/realtime/voice/stt/pocketsphinx-cmn.ts'
import { agentLm, bigramArpa } from '../../src/realtime/voice/stt/agent-lm/index.ts'
import { type DecoderOptions, DEBIAN_MODEL_DIR, loadNative, SphinxDecoder } from '../../src/realtime/voice/stt/pocketsphinx-ffi.ts'
import { Clips } from './understanding/cache.ts'
import { CLINIC_DOCUMENTS, loadCorpus, type Split } from './understanding/corpus.ts'
import { ensureAudio } from './understanding/generate.ts'
import { normalise, sumErrors, werPercent, wordErrors } from './understanding/score.ts'

const argv = process.argv.slice(2)
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined)
const voices = (opt('--voices') ?? 'festival-kal,festival-slt,espeak-us,pico-us').split(',')
const limit = Number(opt('--limit') ?? 8)
const weights = (opt('--general-weights') ?? '0.5,0.7').split(',').map(Number)

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
const tuning = corpus.filter((u) => u.split === 'tuning').map((u) => u.text)
const sentences = [...tuning, ...documents.flatMap((d) => d.split(/[.\n?!]+/))]
  .map((s) => normalise(s).filter((w) => dictionary.has(w)))
  .filter((s) => s.length > 0)

const dir = mkdtempSync(join(tmpdir(), 'domain-lm-'))
const lm = join(dir, 'domain.arpa')
const model = bigramArpa(sentences)
writeFileSync(lm, model.arpa)
// the agent's model as calls build it (agent-lm/): the documents as its knowledge, the tuning phrasings as its workflow's
const variants: [string, DecoderOptions][] = [['general en-us', {}], ['domain bigram', { lm }]]
for (const generalWeight of weights) {
  const t = performance.now()
  const built = await agentLm({ workflow: tuning, prompt: '', vocabulary: [], knowledge: documents }, { dir, dictionary: join(DEBIAN_MODEL_DIR, 'cmudict-en-us.dict'), generalWeight })
  console.log(`agent model (general weight ${generalWeight}): ${built.summary.words} words, ${built.summary.bigrams} bigrams, ${built.summary.addedWords.length} words given phones, built in ${((performance.now() - t) / 1000).toFixed(2)} s`)
  variants.push([`interpolated ${generalWeight}`, { agentLm: built.files }])
}
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
  for (const [name, options] of variants) {
    const load = performance.now()
    const d = SphinxDecoder.create(n, 'dictation', DEBIAN_MODEL_DIR, options)
    const loadMs = performance.now() - load
    const t = performance.now()
    const errors = lines.map((l) => {
      d.start(startingMean('phone'))
      for (let i = 0; i < l.pcm.length; i += 320) d.feed(l.pcm.subarray(i, i + 320))
      return wordErrors(l.u.text, d.finish())
    })
    d.free()
    const cpu = (performance.now() - t) / 1000 / seconds
    console.log(`${split.padEnd(7)} ${name.padEnd(17)} word errors ${werPercent(sumErrors(errors))?.toFixed(1)}% over ${lines.length} in-domain questions; CPU ${(100 * cpu).toFixed(1)}% of a core per second of speech; decoder made in ${loadMs.toFixed(0)} ms`)
  }
}
rmSync(dir, { recursive: true, force: true })
