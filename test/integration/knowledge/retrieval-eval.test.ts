// The retrieval evaluation of issue 29. Each set's documents are uploaded through the API and its
// caller questions searched as a workflow's answer node searches them. Top-1 is right when the best
// passage holds the answer; an unanswerable question is refused when the best score is under the
// answer threshold; "answered" counts right top-1s that also pass the threshold (what a caller
// hears). The clinic set (test/fixtures/knowledge-eval) is the issue's acceptance; the garage set
// (knowledge-heldout) was written without seeing the search code, is never tuned on, and its
// figure is printed as is, with only a floor held.
// The knowledge-domains sets (issue 43: real public pages, 300+ questions each) report per domain
// top-1, top-3, the right fact heard (clean and recognition-error questions apart), a wrong
// answer spoken and the unanswerable refused at the knowledge threshold, tuning and held-out
// domains apart; the held-out floors are what was measured when they were first run, never
// tuned to (docs/knowledge.md has the figures).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { DEFAULT_MIN_SCORE } from '../../../src/features/knowledge/index.ts'
import { type DomainFigures, domains, evaluateDomain, summarise, summaryLine } from '../../helpers/knowledge-domains.ts'

interface Question { id: string; question: string; kind: 'clean' | 'asr' | 'unanswerable'; document: string | null; contains: string | null }
interface Figures { top1: number; answerable: number; answered: number; refused: number; unanswerable: number; asrTop1: number; asr: number; misses: string[] }

let t: TestAppliance
beforeAll(async () => {
  // some hundred searches in a row: the per-key rate limit is not what this measures
  t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
})
afterAll(() => t.stop())

async function evaluate(set: string): Promise<Figures> {
  const dir = join(import.meta.dir, '../../fixtures', set)
  const baseId = (await t.api('POST', '/api/knowledge-bases', { body: { name: set } })).body.knowledgeBase.id
  for (const name of readdirSync(join(dir, 'documents')).sort()) {
    const r = await t.api('POST', `/api/knowledge-bases/${baseId}/documents`, { body: { name, content: readFileSync(join(dir, 'documents', name), 'utf8') } })
    if (r.status !== 200) throw new Error(`${name}: ${JSON.stringify(r.body)}`)
  }
  const questions: Question[] = JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8'))
  const f: Figures = { top1: 0, answerable: 0, answered: 0, refused: 0, unanswerable: 0, asrTop1: 0, asr: 0, misses: [] }
  for (const q of questions) {
    const r = await t.api('GET', `/api/knowledge-bases/${baseId}/search?limit=1&q=${encodeURIComponent(q.question)}`)
    expect(r.status).toBe(200)
    const best = r.body.results[0] as { text: string; score: number; documentName: string } | undefined
    const confident = best !== undefined && best.score >= DEFAULT_MIN_SCORE
    if (q.contains === null) {
      f.unanswerable++
      if (!confident) f.refused++
      else f.misses.push(`${q.id} answered (${best!.score}) "${q.question}" with ${best!.documentName}`)
      continue
    }
    f.answerable++
    if (q.kind === 'asr') f.asr++
    const right = best !== undefined && best.text.includes(q.contains)
    if (right) f.top1++
    if (right && q.kind === 'asr') f.asrTop1++
    if (right && confident) f.answered++
    if (!right) f.misses.push(`${q.id} ${q.kind} "${q.question}" -> ${best ? `${best.score} ${best.documentName}: ${best.text.slice(0, 60).replace(/\s+/g, ' ')}` : 'nothing'}`)
  }
  const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / b).toFixed(0)}%)`
  console.log(
    `${set} (threshold ${DEFAULT_MIN_SCORE}): top-1 right ${pct(f.top1, f.answerable)} of the answerable, ${pct(f.asrTop1, f.asr)} of those with recognition errors; ` +
      `answered right ${pct(f.answered, f.answerable)}; refused ${f.refused}/${f.unanswerable} without an answer\n  ${f.misses.join('\n  ')}`,
  )
  return f
}

// PostgreSQL's ts_rank has no inverse document frequency and ranks below SQLite's BM25; the
// issue's 80% is the offline appliance's (SQLite), PostgreSQL keeps a floor of its own
const onPostgres = Boolean(process.env.TEST_DATABASE_URL)

test('the clinic set: top-1 right on at least 80% of the answerable questions (70% on PostgreSQL), and at least 8 of the 10 without an answer refused', async () => {
  const f = await evaluate('knowledge-eval')
  expect(f.answerable).toBe(50)
  expect(f.top1 / f.answerable).toBeGreaterThanOrEqual(onPostgres ? 0.7 : 0.8)
  expect(f.refused).toBeGreaterThanOrEqual(8)
})

test('the held-out garage set keeps its floor: half of the answerable right at top-1, half of the unanswerable refused', async () => {
  const f = await evaluate('knowledge-heldout')
  expect(f.answerable).toBe(20)
  expect(f.top1 / f.answerable).toBeGreaterThanOrEqual(0.5)
  expect(f.refused).toBeGreaterThanOrEqual(2)
})

async function domainFigures(split: 'tuning' | 'heldout'): Promise<DomainFigures[]> {
  const out: DomainFigures[] = []
  for (const d of domains().filter((x) => x.split === split)) out.push(await evaluateDomain(t.appliance.database.db, t.workspaceId, d))
  for (const f of out) console.log(summaryLine(f.domain, summarise(f.outcomes)))
  console.log(summaryLine(`${split} (all)`, summarise(out.flatMap((f) => f.outcomes))))
  return out
}

test('the tuning domains (login-gov, healthcare-gov, va-education): a wrong answer rarely spoken, most unanswerable refused', async () => {
  const s = summarise((await domainFigures('tuning')).flatMap((f) => f.outcomes))
  expect(s.top3).toBeGreaterThanOrEqual(onPostgres ? 0.65 : 0.78)
  // of the right first passages, what is said holds the fact
  expect(s.excerpt).toBeGreaterThanOrEqual(onPostgres ? 0.68 : 0.7)
  expect(s.wrongSpoken).toBeLessThanOrEqual(onPostgres ? 0.1 : 0.06)
  expect(s.refused).toBeGreaterThanOrEqual(0.85)
}, 300_000)

test('the held-out domains (va-health-care, va-burials): the confidence ranks right answers above wrong ones, and keeps wrong answers rare', async () => {
  const s = summarise((await domainFigures('heldout')).flatMap((f) => f.outcomes))
  expect(s.auc).toBeGreaterThanOrEqual(onPostgres ? 0.72 : 0.75)
  expect(s.top3).toBeGreaterThanOrEqual(onPostgres ? 0.65 : 0.8)
  expect(s.excerpt).toBeGreaterThanOrEqual(0.74)
  expect(s.wrongSpoken).toBeLessThanOrEqual(onPostgres ? 0.12 : 0.08)
  expect(s.refused).toBeGreaterThanOrEqual(0.85)
}, 300_000)
