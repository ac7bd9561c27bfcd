// Knowledge search at scale: one base of 10,000 passages (200 generated documents of 50 sections,
// words drawn from spoken English by frequency), indexed through the service, then searched with
// the clinic evaluation's 60 caller questions and 140 generated ones, on SQLite and on PostgreSQL
// in the same run. Prints index throughput (pages of 400 words per second) and search latency
// (p50/p99/max of the whole searchKnowledge call: terms, sounds, candidates, stats, speakable text),
// and PostgreSQL's figures as ratios to SQLite's.
//   bun run scripts/bench/knowledge-search.ts [--passages 10000] [--queries 200]
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestAppliance } from '../../test/helpers/appliance.ts'
import { postgresInstalled, startPostgres } from '../../test/helpers/postgres.ts'
import { searchKnowledge } from '../../src/features/knowledge/index.ts'
import { createBase, uploadDocument } from '../../src/features/knowledge/knowledge.service.ts'
import { loadConfig } from '../../src/platform/config/index.ts'
import { percentile } from './stats.ts'

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}
const PASSAGES = arg('passages', 10_000)
const QUERIES = arg('queries', 200)
const SECTIONS = 50
const WORDS_PER_PAGE = 400

/** A deterministic random source, so both engines index the same documents. */
function rng(seed: number) {
  let s = seed >>> 0
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

const vocabulary = readFileSync(join(import.meta.dir, '../../src/features/knowledge/text/spoken-english.txt'), 'utf8')
  .split('\n')
  .slice(1, 20_001)
  .map((l) => l.split(' ')[0]!)
  .filter(Boolean)
/** Zipf-like: word rank r is drawn with probability about 1/r. */
const word = (r: () => number) => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(r() * Math.log(vocabulary.length))) - 1)]!
const words = (r: () => number, n: number) => Array.from({ length: n }, () => word(r)).join(' ')

function documents(): { name: string; content: string; words: number }[] {
  const r = rng(29)
  const docs: { name: string; content: string; words: number }[] = []
  for (let d = 0; d < PASSAGES / SECTIONS; d++) {
    let count = 0
    const parts = [`# ${words(r, 3)}`]
    for (let s = 0; s < SECTIONS; s++) {
      const body = `${words(r, 45 + Math.floor(r() * 30))}.`
      count += body.split(' ').length
      parts.push(`## ${words(r, 2 + Math.floor(r() * 3))}`, body)
    }
    docs.push({ name: `doc-${d}.md`, content: parts.join('\n\n'), words: count })
  }
  return docs
}

function queries(): string[] {
  const asked = (JSON.parse(readFileSync(join(import.meta.dir, '../../test/fixtures/knowledge-eval/questions.json'), 'utf8')) as { question: string }[]).map((q) => q.question)
  const r = rng(7)
  while (asked.length < QUERIES) asked.push(`${['what', 'how much', 'when', 'do you', 'where'][Math.floor(r() * 5)]} ${words(r, 3 + Math.floor(r() * 5))}`)
  return asked.slice(0, QUERIES)
}

interface Figures {
  pagesPerSec: number
  indexSec: number
  p50: number
  p99: number
  max: number
}

async function run(label: string): Promise<Figures> {
  const t = await startTestAppliance()
  try {
    const db = t.appliance.database.db
    const limits = loadConfig({}, {})
    const base = await createBase(db, t.workspaceId, { name: 'bench' }, limits)
    const docs = documents()
    const started = performance.now()
    for (const d of docs) await uploadDocument(db, t.workspaceId, base.id, { name: d.name, content: d.content }, { ...limits, KNOWLEDGE_MAX_DOCUMENTS: 100_000, KNOWLEDGE_MAX_WORKSPACE_BYTES: 1e12 })
    const indexSec = (performance.now() - started) / 1000
    const pages = docs.reduce((s, d) => s + d.words, 0) / WORDS_PER_PAGE
    const qs = queries()
    for (const q of qs.slice(0, 20)) await searchKnowledge(db, t.workspaceId, [base.id], q, 1)
    const times: number[] = []
    for (const q of qs) {
      const t0 = performance.now()
      await searchKnowledge(db, t.workspaceId, [base.id], q, 1)
      times.push(performance.now() - t0)
    }
    const f = { pagesPerSec: pages / indexSec, indexSec, p50: percentile(times, 50), p99: percentile(times, 99), max: Math.max(...times) }
    console.log(
      `${label.padEnd(10)} ${PASSAGES} passages (${pages.toFixed(0)} pages) indexed in ${indexSec.toFixed(1)} s: ${f.pagesPerSec.toFixed(0)} pages/s; ` +
        `search over ${qs.length} queries p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms, max ${f.max.toFixed(2)} ms`,
    )
    return f
  } finally {
    await t.stop()
  }
}

console.log('knowledge search benchmark: one base, generated documents of 50 sections, the whole searchKnowledge call timed')
const lite = await run('SQLite')
if (postgresInstalled()) {
  const cluster = await startPostgres()
  process.env.TEST_DATABASE_URL = cluster.adminUrl
  try {
    const pg = await run('PostgreSQL')
    console.log(`PostgreSQL / SQLite: index ${(lite.pagesPerSec / pg.pagesPerSec).toFixed(2)}x slower, search p99 ${(pg.p99 / lite.p99).toFixed(2)}x`)
  } finally {
    delete process.env.TEST_DATABASE_URL
    await cluster.stop()
  }
} else console.log('PostgreSQL: skipped (Debian package postgresql not installed)')
