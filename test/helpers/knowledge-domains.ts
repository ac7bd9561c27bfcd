// The knowledge-domains evaluation (test/fixtures/knowledge-domains): each domain's documents in a
// base of their own, each question searched as a workflow's answer node searches (its default
// maxChars), and the outcome a caller gets: the right fact heard, a wrong answer spoken, a refusal.
// Shared by the retrieval evaluation test and scripts/bench/knowledge-answers.ts.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Db } from '../../src/platform/db/index.ts'
import { loadConfig } from '../../src/platform/config/index.ts'
import { KNOWLEDGE_MIN_SCORE, searchKnowledge } from '../../src/features/knowledge/index.ts'
import { createBase, uploadDocument } from '../../src/features/knowledge/knowledge.service.ts'

export const DOMAINS_DIR = join(import.meta.dir, '../fixtures/knowledge-domains')

export interface DomainQuestion { id: string; question: string; kind: 'clean' | 'asr' | 'unanswerable'; document: string | null; contains: string | null; answerType: string }
export interface Domain { domain: string; split: 'tuning' | 'heldout' }

export const domains = (): Domain[] => JSON.parse(readFileSync(join(DOMAINS_DIR, 'domains.json'), 'utf8'))

/** One question's outcome. */
export interface Outcome {
  q: DomainQuestion
  /** The best passage's confidence (0 when nothing was found). */
  score: number
  top1: boolean
  top3: boolean
  /** The spoken excerpt of the best passage holds the fact. */
  heard: boolean
}

export interface DomainFigures {
  domain: string
  split: string
  outcomes: Outcome[]
}

const ANSWER_CHARS = 300

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ')

/** The domain's documents uploaded to a new base of the workspace, and its questions. */
export async function loadDomain(db: Db, workspaceId: string, d: Domain, dir = join(DOMAINS_DIR, d.domain)): Promise<{ baseId: string; questions: DomainQuestion[] }> {
  const limits = loadConfig({}, {})
  const base = await createBase(db, workspaceId, { name: d.domain }, limits)
  for (const name of readdirSync(join(dir, 'documents')).sort()) {
    await uploadDocument(db, workspaceId, base.id, { name, content: readFileSync(join(dir, 'documents', name), 'utf8') }, { ...limits, KNOWLEDGE_MAX_DOCUMENTS: 100_000, KNOWLEDGE_MAX_WORKSPACE_BYTES: 1e12 })
  }
  return { baseId: base.id, questions: JSON.parse(readFileSync(join(dir, 'questions.json'), 'utf8')) }
}

/** Whether a passage's text holds the question's fact (case and spacing aside). */
export const holdsFact = (q: DomainQuestion, text: string | undefined) => q.contains !== null && text !== undefined && norm(text).includes(norm(q.contains))

export async function evaluateDomain(db: Db, workspaceId: string, d: Domain): Promise<DomainFigures> {
  const { baseId, questions } = await loadDomain(db, workspaceId, d)
  const base = { id: baseId }
  const outcomes: Outcome[] = []
  for (const q of questions) {
    const hits = await searchKnowledge(db, workspaceId, [base.id], q.question, 3, ANSWER_CHARS)
    const has = (text: string | undefined) => holdsFact(q, text)
    outcomes.push({
      q, score: hits[0]?.score ?? 0,
      top1: has(hits[0] && `${hits[0].text}`), top3: hits.some((h) => has(h.text)), heard: has(hits[0]?.spoken),
    })
  }
  return { domain: d.domain, split: d.split, outcomes }
}

/** Area under the ROC curve of `score` for right (top-1) against wrong or unanswerable outcomes. */
export function auc(outcomes: Outcome[]): number {
  const pos = outcomes.filter((o) => o.top1).map((o) => o.score)
  const neg = outcomes.filter((o) => !o.top1).map((o) => o.score)
  if (!pos.length || !neg.length) return NaN
  let wins = 0
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0
  return wins / (pos.length * neg.length)
}

export interface Summary {
  top1: number; top3: number; excerpt: number; heardClean: number; heardAsr: number; wrongSpoken: number; refused: number; auc: number
}

/** Shares, 0..1, at threshold `min`: of the answerable (top-1, top-3, heard), of all questions (wrong spoken), of the unanswerable (refused). */
export function summarise(outcomes: Outcome[], min = KNOWLEDGE_MIN_SCORE): Summary {
  const answerable = outcomes.filter((o) => o.q.contains !== null)
  const share = (xs: Outcome[], f: (o: Outcome) => boolean) => (xs.length ? xs.filter(f).length / xs.length : NaN)
  const spoken = (o: Outcome) => o.score >= min
  return {
    top1: share(answerable, (o) => o.top1),
    top3: share(answerable, (o) => o.top3),
    // of the right passages, the spoken excerpt holds the fact
    excerpt: share(answerable.filter((o) => o.top1), (o) => o.heard),
    heardClean: share(answerable.filter((o) => o.q.kind === 'clean'), (o) => spoken(o) && o.heard),
    heardAsr: share(answerable.filter((o) => o.q.kind === 'asr'), (o) => spoken(o) && o.heard),
    // a passage spoken that does not hold the fact, or any passage spoken for an unanswerable question
    wrongSpoken: share(outcomes, (o) => spoken(o) && !o.top1),
    refused: share(outcomes.filter((o) => o.q.contains === null), (o) => !spoken(o)),
    auc: auc(outcomes),
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`
export const summaryLine = (label: string, s: Summary) =>
  `${label.padEnd(16)} top-1 ${pct(s.top1)}  top-3 ${pct(s.top3)}  excerpt ${pct(s.excerpt)}  heard clean ${pct(s.heardClean)}  heard asr ${pct(s.heardAsr)}  wrong spoken ${pct(s.wrongSpoken)}  refused ${pct(s.refused)}  AUC ${s.auc.toFixed(3)}`
