// Searching knowledge bases with either database's full-text engine: the caller's terms are
// counted (up to a cap), the words no passage holds or few do are searched again by how they
// sound, the engine ranks candidates with the forms that discriminate, and confidence
// (text/confidence.ts), worked out on each candidate's own words, is the score a threshold is set
// on, the same on both engines.
import { sql } from 'kysely'
import { type Db, fullTextSearch } from '../../../platform/db/index.ts'
import { answerKind, type AnswerKind, type CallerQuery, callerQuery, statesKind, evidenceOf, type PassageFeatures, passageFeatures, passageWords, rareTerms, soundsFor, unknownTerms } from '../text/index.ts'
import { CONFIDENCE, probability, RANKING } from './calibration.ts'
import type { Candidate, FullTextEngine } from './contracts.ts'
import { postgresEngine } from './postgres.ts'
import { sqliteEngine } from './sqlite.ts'

const ENGINES: Record<ReturnType<typeof fullTextSearch>, FullTextEngine> = { fts5: sqliteEngine, tsvector: postgresEngine }

/** A term in at most this share of the passages (and at least 2) is rare: misheard, perhaps. */
const RARE_SHARE = 0.002
/**
 * Passages are counted up to this many per form: a form in more ranks little, and is left out of
 * the engine's query (unless every form is as common). Counting further costs time on every
 * search of a large base.
 */
const COMMON = 200
/** Candidates weighed per search at least: the runner-up's margin needs more than one. */
const POOL = 8

export interface SearchHit extends Candidate {
  /** 0..1: the calibrated probability that the passage answers the question (calibration.ts). */
  score: number
  /** What the score was computed from. */
  features: PassageFeatures & { rankShare: number; margin: number; rankMargin: number; statesAsked: number }
}

export interface SearchedBase {
  id: string
  language: string
  /** The block of its passages' ids. */
  block: number
}

export const isEnglish = (language: string) => /^en(-|$)/i.test(language)

/** The best passages for `query` in `bases`, best first, and the words searched (for choosing what to say). */
export async function searchBases(db: Db, bases: SearchedBase[], query: string, limit: number): Promise<{ hits: SearchHit[]; words: string[] }> {
  const engine = ENGINES[fullTextSearch(db)]
  const hits: SearchHit[] = []
  const words: string[] = []
  for (const english of [true, false]) {
    const group = bases.filter((b) => isEnglish(b.language) === english)
    const baseIds = group.map((b) => b.id)
    const q = callerQuery(query, english)
    if (!group.length || !q.terms.length) continue
    words.push(...q.terms.flatMap((t) => t.forms.flatMap((f) => f.phrase.split(' '))))
    const passages = await passagesIn(db, baseIds)
    const forms = q.terms.flatMap((t) => t.forms)
    const formDf = await engine.df(db, group, english, forms.map((form) => ({ form })), COMMON + 1)
    lexicalOnlyWhenMissing(q.terms, formDf)
    const first = evidenceOf(q, formDf, [], [], passages)
    const sounds = soundsFor(q, unknownTerms(first), rareTerms(first, Math.max(2, passages * RARE_SHARE)))
    const soundDf = (await engine.df(db, group, english, sounds.map((s) => ({ sound: s.key })), COMMON + 1)).map((d) => d ?? 0)
    const held = forms.map((form, i) => ({ form, df: formDf[i] ?? 0 })).filter((f) => f.df > 0)
    const ranking = held.filter((f) => f.df <= COMMON).map((f) => f.form)
    const heard = sounds.filter((_, i) => soundDf[i]! > 0 && soundDf[i]! <= COMMON).map((s) => s.key)
    if (!held.length && !heard.length) continue
    // only common words said: they rank as well as they can
    const candidates = await engine.candidates(db, group, english, ranking.length || heard.length ? ranking : held.map((f) => f.form), heard, Math.max(limit, POOL))
    hits.push(...weigh(candidates, evidenceOf(q, formDf, sounds, soundDf, passages), english, english ? answerKind(query) : 'other'))
  }
  // one engine's ranks compare among themselves only: with bases in two languages, the better score leads
  if (bases.some((b) => isEnglish(b.language)) && bases.some((b) => !isEnglish(b.language))) hits.sort((a, b) => b.score - a.score)
  return { hits: hits.slice(0, limit), words: [...new Set(words)] }
}

/** Candidates in the ranking model's order, each with its calibrated confidence. */
function weigh(candidates: Candidate[], evidence: ReturnType<typeof evidenceOf>, english: boolean, kind: AnswerKind): SearchHit[] {
  const best = Math.max(...candidates.map((c) => c.rank), 0)
  const ranked = candidates
    .map((c) => {
      const f = passageFeatures(passageWords(`${c.title} ${c.section} ${c.body}`, english, c.sounds), passageWords(`${c.title} ${c.section}`, english), evidence, english)
      // whether it states the kind of fact asked (a time for "when"); 0.5 when none is asked
      const statesAsked = kind === 'other' ? 0.5 : statesKind(c.answer ?? c.body, kind) / 2
      const features = { ...f, rankShare: best > 0 ? c.rank / best : 0, statesAsked }
      return { c, features, order: probability(RANKING, features) }
    })
    .sort((a, b) => b.order - a.order)
  return ranked.map(({ c, features, order }, i) => {
    const other = ranked.length > 1 ? ranked[i === 0 ? 1 : 0]! : undefined
    const margin = order - (other?.order ?? 0)
    const rankMargin = features.rankShare - (other?.features.rankShare ?? 0)
    const score = probability(CONFIDENCE, { ...features, margin, rankMargin })
    return { ...c, score: Math.round(score * 1000) / 1000, features: { ...features, margin, rankMargin } }
  })
}

/**
 * WordNet's words for a term count only when no passage holds the term as said or as
 * caller-words.ts has it: "fridge" finds refrigerators in a base that never says fridge, while in
 * one that does, its synonyms' other senses would only add noise. Marks them dropped (null).
 */
function lexicalOnlyWhenMissing(terms: CallerQuery['terms'], formDf: (number | null)[]) {
  let at = 0
  for (const t of terms) {
    if (t.forms.some((f, k) => !f.wordnet && (formDf[at + k] ?? 0) > 0)) t.forms.forEach((f, k) => f.wordnet && (formDf[at + k] = null))
    at += t.forms.length
  }
}

/** Passages of the bases (each document counts its own: a few rows, not one per passage). */
async function passagesIn(db: Db, baseIds: string[]): Promise<number> {
  const r = await db
    .selectFrom('knowledge_documents')
    .select(sql<number>`coalesce(sum(chunk_count), 0)`.as('n'))
    .where('knowledge_base_id', 'in', baseIds)
    .executeTakeFirstOrThrow()
  return Number(r.n)
}
