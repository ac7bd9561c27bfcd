// Dumps every evaluation question's candidates (up to --pool of them, in the engine's order) with
// their features and whether each holds the fact, for studying the ranking and confidence offline.
//   bun run scripts/knowledge/dump-candidates.ts --pool 40 --out file.json
import { writeFileSync } from 'node:fs'
import { startTestAppliance } from '../../test/helpers/appliance.ts'
import { domains, holdsFact, loadDomain } from '../../test/helpers/knowledge-domains.ts'
import { findBases } from '../../src/features/knowledge/index.ts'
import { searchBases } from '../../src/features/knowledge/search/index.ts'

const value = (name: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : undefined
}
const pool = Number(value('pool') ?? 40)
const t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
const out: unknown[] = []
try {
  const db = t.appliance.database.db
  for (const d of domains()) {
    const { baseId, questions } = await loadDomain(db, t.workspaceId, d)
    const bases = (await findBases(db, t.workspaceId, [baseId])).map((b) => ({ id: b.id, language: b.language, block: b.passage_block }))
    for (const q of questions) {
      const { hits, words } = await searchBases(db, bases, q.question, pool)
      out.push({ domain: d.domain, split: d.split, q, words, hits: hits.map((h) => ({ id: h.chunkId, rank: h.rank, title: h.title, section: h.section, body: h.body, answer: h.answer, features: h.features, right: holdsFact(q, h.body) })) })
    }
  }
} finally {
  await t.stop()
}
writeFileSync(value('out') ?? 'candidates.json', JSON.stringify(out))
