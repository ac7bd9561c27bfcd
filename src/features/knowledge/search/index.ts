// Searching knowledge bases with either database's full-text engine: the caller's terms in all
// their forms find and rank candidates; terms no passage holds are searched again by how they
// sound; confidence (text/confidence.ts) is the score a threshold is set on, the same on both.
import { sql } from 'kysely'
import { type Db, fullTextSearch } from '../../../platform/db/index.ts'
import { callerQuery, confidence, evidenceOf, soundsFor, unknownTerms } from '../text/index.ts'
import type { Candidate, FullTextEngine } from './contracts.ts'
import { postgresEngine } from './postgres.ts'
import { sqliteEngine } from './sqlite.ts'

const ENGINES: Record<ReturnType<typeof fullTextSearch>, FullTextEngine> = { fts5: sqliteEngine, tsvector: postgresEngine }

/** Candidates the engine ranks and scores. */
const CANDIDATES = 12

export interface SearchHit extends Candidate {
  /** 0..1: the share of what the caller said (weighted by how much each word says) the passage holds. */
  score: number
}

export interface SearchedBase {
  id: string
  language: string
}

export const isEnglish = (language: string) => /^en(-|$)/i.test(language)

/** The best passages for `query` in `bases`, best first, and the words searched (for choosing what to say). */
export async function searchBases(db: Db, bases: SearchedBase[], query: string, limit: number): Promise<{ hits: SearchHit[]; words: string[] }> {
  const engine = ENGINES[fullTextSearch(db)]
  const hits: SearchHit[] = []
  const words: string[] = []
  for (const english of [true, false]) {
    const baseIds = bases.filter((b) => isEnglish(b.language) === english).map((b) => b.id)
    const q = callerQuery(query, english)
    if (!baseIds.length || !q.terms.length) continue
    const forms = q.terms.flatMap((t) => t.forms)
    const known = await engine.stats(db, baseIds, english, forms, [], [])
    const sounds = soundsFor(q, unknownTerms(evidenceOf(q, known.forms, [], [], 0)))
    const found = await engine.candidates(db, baseIds, english, forms, sounds.map((s) => s.key), CANDIDATES)
    words.push(...q.terms.flatMap((t) => t.forms.flatMap((f) => f.phrase.split(' '))))
    if (!found.length) continue
    const stats = await engine.stats(db, baseIds, english, forms, sounds.map((s) => s.key), found.map((c) => c.chunkId))
    const evidence = evidenceOf(q, stats.forms, sounds, stats.sounds, await passagesIn(db, baseIds, english))
    for (const c of found) hits.push({ ...c, score: Math.round(confidence(c.chunkId, evidence) * 1000) / 1000 })
  }
  // one engine's ranks compare among themselves only: with bases in two languages, the better score leads
  if (bases.some((b) => isEnglish(b.language)) && bases.some((b) => !isEnglish(b.language))) hits.sort((a, b) => b.score - a.score)
  return { hits: hits.slice(0, limit), words: [...new Set(words)] }
}

async function passagesIn(db: Db, baseIds: string[], english: boolean): Promise<number> {
  const r = await db
    .selectFrom('knowledge_chunks')
    .select(sql<number>`count(*)`.as('n'))
    .where('knowledge_base_id', 'in', baseIds)
    .where('english', '=', english ? 1 : 0)
    .executeTakeFirstOrThrow()
  return Number(r.n)
}
