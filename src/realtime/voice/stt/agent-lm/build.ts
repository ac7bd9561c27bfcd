import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { AgentLmFiles } from '../pocketsphinx-ffi.ts'
import { bigramArpa } from './arpa.ts'
import { corpusOf, type LmSource } from './corpus.ts'
import { dictionaryWords, letterToSound } from './pronounce.ts'

/** Raised when the way a model is made changes, so that models cached by an older one are not reused. */
const BUILDER_VERSION = 1
/** Sentences counted at most: a large knowledge base's first ones (the bigram grows with each). */
const MAX_SENTENCES = 20_000

/** What a model was built from, for the console. */
export interface AgentLmSummary {
  /** The hash of its inputs, which names its folder. */
  hash: string
  sentences: number
  words: number
  bigrams: number
  /** Words the dictionary lacked, given phones by letter-to-sound rules. */
  addedWords: string[]
  /** Words left out: neither in the dictionary nor pronounceable. */
  droppedWords: string[]
}

export interface BuiltAgentLm {
  files: AgentLmFiles
  summary: AgentLmSummary
}

export interface BuildOptions {
  /** Where models are kept, one folder per hash of their inputs. */
  dir: string
  /** The pocketsphinx dictionary whose words need no pronunciation. */
  dictionary: string
  generalWeight: number
}

/** The hash of everything a model is made from: equal inputs share one model. */
export function lmHash(source: LmSource, generalWeight: number): string {
  const canonical = JSON.stringify([BUILDER_VERSION, generalWeight, source.workflow, source.prompt, source.vocabulary, source.knowledge])
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32)
}

const building = new Map<string, Promise<BuiltAgentLm>>()

/** The agent's model, read from the cache when its inputs were built before, else built and cached. */
export function agentLm(source: LmSource, opts: BuildOptions): Promise<BuiltAgentLm> {
  const hash = lmHash(source, opts.generalWeight)
  const key = `${opts.dir}\0${hash}`
  let pending = building.get(key)
  if (!pending) {
    pending = cachedOrBuilt(source, hash, opts).finally(() => building.delete(key))
    building.set(key, pending)
  }
  return pending
}

async function cachedOrBuilt(source: LmSource, hash: string, opts: BuildOptions): Promise<BuiltAgentLm> {
  const folder = join(opts.dir, hash)
  const arpa = join(folder, 'model.arpa')
  const meta = join(folder, 'model.json')
  if (existsSync(meta)) {
    const saved = JSON.parse(await readFile(meta, 'utf8')) as { summary: AgentLmSummary }
    return { files: { arpa, generalWeight: opts.generalWeight, dictionary: join(folder, 'model.dict') }, summary: saved.summary }
  }
  const known = await dictionaryWords(opts.dictionary)
  const corpus = corpusOf(source).slice(0, MAX_SENTENCES)
  const missing = [...new Set(corpus.flat())].filter((w) => !known.has(w))
  const pronunciations: [string, string][] = []
  const dropped = new Set<string>()
  for (const w of missing) {
    const phones = await letterToSound(w)
    if (phones) pronunciations.push([w, phones])
    else dropped.add(w)
  }
  const model = bigramArpa(corpus.map((s) => s.filter((w) => !dropped.has(w))).filter((s) => s.length > 0))
  const summary: AgentLmSummary = {
    hash,
    sentences: corpus.length,
    words: model.words,
    bigrams: model.bigrams,
    addedWords: pronunciations.map(([w]) => w),
    droppedWords: [...dropped],
  }
  const part = `${folder}.part-${process.pid}-${Math.random().toString(36).slice(2)}`
  await mkdir(part, { recursive: true })
  await writeFile(join(part, 'model.arpa'), model.arpa)
  const added = pronunciations.map(([w, phones]) => `${w} ${phones}\n`).join('')
  await writeFile(join(part, 'model.dict'), `${await readFile(opts.dictionary, 'utf8')}${added}`)
  // written last: its presence says the folder is whole
  await writeFile(join(part, 'model.json'), JSON.stringify({ summary, pronunciations }))
  try {
    await rename(part, folder)
  } catch {
    // another process built the same inputs first
    await rm(part, { recursive: true, force: true })
  }
  return { files: { arpa, generalWeight: opts.generalWeight, dictionary: join(folder, 'model.dict') }, summary }
}
