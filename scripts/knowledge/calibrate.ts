// Fits src/features/knowledge/search/calibration.json on the TUNING domains of
// test/fixtures/knowledge-domains and the clinic set the search was first tuned on
// (test/fixtures/knowledge-eval); the held-out domains are never read here. Every question is
// searched, and each of its candidates' features recorded with whether the passage holds the
// fact. The ranking model is fitted on all candidates (right or not); the confidence model on the
// first candidate in the ranking model's order, with its margin over the runner-up: right when it
// holds the fact, wrong when it does not or the question has no answer. Logistic regression by
// gradient descent with a little L2. Prints the reliability of the confidence in tenths.
//   bun run scripts/knowledge/calibrate.ts
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestAppliance } from '../../test/helpers/appliance.ts'
import { domains, holdsFact, loadDomain } from '../../test/helpers/knowledge-domains.ts'
import { findBases } from '../../src/features/knowledge/index.ts'
import { type SearchHit, searchBases } from '../../src/features/knowledge/search/index.ts'
import { type Model, probability } from '../../src/features/knowledge/search/calibration.ts'

const FEATURES = ['coverage', 'plainCoverage', 'telling', 'heading', 'unknown', 'missing', 'terms'] as const
const RANKING_FEATURES = [...FEATURES, 'rankShare', 'statesAsked']
const CONFIDENCE_FEATURES = [...FEATURES, 'statesAsked', 'margin', 'rankMargin']

const CLINIC_WEIGHT = 5

type Row = { x: Record<string, number>; y: number }
type Features = SearchHit['features']

function fit(rows: Row[], names: string[], steps = 4000, rate = 0.5, l2 = 1e-3): Model {
  let bias = 0
  const w = Object.fromEntries(names.map((n) => [n, 0])) as Record<string, number>
  for (let s = 0; s < steps; s++) {
    let gb = 0
    const g = Object.fromEntries(names.map((n) => [n, 0])) as Record<string, number>
    for (const r of rows) {
      const e = probability({ bias, weights: w }, r.x) - r.y
      gb += e
      for (const n of names) g[n]! += e * (r.x[n] ?? 0)
    }
    bias -= (rate * gb) / rows.length
    for (const n of names) w[n]! -= rate * (g[n]! / rows.length + l2 * w[n]!)
  }
  const round = (x: number) => Math.round(x * 1000) / 1000
  return { bias: round(bias), weights: Object.fromEntries(names.map((n) => [n, round(w[n]!)])) }
}

const t = await startTestAppliance({ RATE_LIMIT_PER_SEC: 0 })
const asked: { hits: SearchHit[]; right: boolean[] }[] = []
try {
  const db = t.appliance.database.db
  const sets = [...domains().filter((x) => x.split === 'tuning').map((d) => ({ d, dir: undefined as string | undefined })), { d: { domain: 'knowledge-eval', split: 'tuning' as const }, dir: join(import.meta.dir, '../../test/fixtures/knowledge-eval') }]
  for (const { d, dir } of sets) {
    const { baseId, questions } = await loadDomain(db, t.workspaceId, d, dir)
    const bases = (await findBases(db, t.workspaceId, [baseId])).map((b) => ({ id: b.id, language: b.language, block: b.passage_block }))
    for (const q of questions) {
      const { hits } = await searchBases(db, bases, q.question, 8)
      // the clinic set has 60 questions to a domain's 320: it weighs as much as one domain
      for (let n = 0; n < (dir ? CLINIC_WEIGHT : 1); n++) asked.push({ hits, right: hits.map((h) => holdsFact(q, h.body)) })
    }
  }
} finally {
  await t.stop()
}

const ranking = fit(asked.flatMap((a) => a.hits.map((h, i) => ({ x: { ...h.features }, y: a.right[i] ? 1 : 0 }))), RANKING_FEATURES)
const tops: Row[] = asked.map((a) => {
  const order = a.hits.map((h, i) => ({ p: probability(ranking, { ...h.features }), right: a.right[i]!, f: h.features })).sort((x, y) => y.p - x.p)
  const margin = order.length ? order[0]!.p - (order[1]?.p ?? 0) : 0
  const rankMargin = order.length ? order[0]!.f.rankShare - (order[1]?.f.rankShare ?? 0) : 0
  return { x: order.length ? { ...order[0]!.f, margin, rankMargin } : { margin: 0 }, y: order[0]?.right ? 1 : 0 }
})
// a question that found nothing scores 0 whatever the model: only those with a candidate count
const confidence = fit(tops.filter((_, i) => asked[i]!.hits.length), CONFIDENCE_FEATURES)

console.log('confidence on the tuning sets, predicted vs right (questions):')
for (let b = 0; b < 10; b++) {
  const inBin = tops.filter((r, i) => asked[i]!.hits.length && Math.min(9, Math.floor(probability(confidence, r.x) * 10)) === b)
  if (inBin.length) console.log(`  ${(b / 10).toFixed(1)}-${((b + 1) / 10).toFixed(1)}: right ${((100 * inBin.filter((r) => r.y).length) / inBin.length).toFixed(0)}% of ${inBin.length}`)
}
const path = join(import.meta.dir, '../../src/features/knowledge/search/calibration.json')
writeFileSync(path, `${JSON.stringify({ ranking, confidence }, null, 2)}\n`)
console.log(`written ${path}\n${JSON.stringify({ ranking, confidence })}`)
