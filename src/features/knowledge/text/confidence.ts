// How sure a passage answers a caller: the share of what the caller said that the passage holds,
// in any of its forms or by sound. Each term weighs by how much it says in spoken English
// (english.ts) times how rare it is among the searched passages (its IDF over the IDF of a word
// none holds): "what time do you close on saturday" is all there in a passage with close and
// Saturday; in "is there a paternity test at the lab" the telling word is missing from every
// passage, and test and lab, common in a clinic's documents, say little. Pure.
import { spokenBits } from './english.ts'
import type { CallerQuery, SoundTerm } from './query.ts'

export interface TermStat {
  /** Passages of the searched bases holding the form (or sound). */
  df: number
  /** Which of the candidate passages hold it. */
  in: Set<number>
}

export interface TermEvidence {
  /** Stats of the term's forms the engine keeps (a stop word of its dictionary is dropped). */
  own: TermStat[]
  /** Stats of the sound keys standing for it. */
  heard: TermStat[]
  /** How much the term says (bits). */
  weight: number
  /** A phrase: its words' terms. */
  parts?: number[]
}

/** BM25's inverse document frequency among `passages`: rarer weighs more, never below zero. */
const idf = (passages: number, df: number) => Math.log(1 + (passages - df + 0.5) / (df + 0.5))

/**
 * Per term of the query: the stats of its forms (null: dropped by the engine) and of the sounds
 * covering it, among `passages` searched passages.
 */
export function evidenceOf(query: CallerQuery, forms: (TermStat | null)[], sounds: SoundTerm[], soundStats: TermStat[], passages: number): TermEvidence[] {
  let at = 0
  return query.terms.map((term, i) => {
    const own = forms.slice(at, (at += term.forms.length)).filter((s): s is TermStat => s !== null)
    const heard = sounds.flatMap((s, j) => (s.covers.includes(i) ? [soundStats[j]!] : []))
    const df = Math.min(...[...own, ...heard].map((s) => s.df || Infinity))
    const rarity = Number.isFinite(df) ? idf(passages, df) / idf(passages, 0) : 1
    return { own, heard, weight: spokenBits(term.said) * rarity, parts: term.parts }
  })
}

/** Terms no passage holds in any form. */
export const unknownTerms = (evidence: TermEvidence[]) => evidence.flatMap((t, i) => (t.own.length && t.own.every((s) => s.df === 0) ? [i] : []))

/** 0..1. A phrase the passage holds ("house calls" as "home visit") counts instead of its words; one it does not hold counts as its words. */
export function confidence(chunkId: number, evidence: TermEvidence[]): number {
  const holds = (t: TermEvidence) => t.own.some((s) => s.in.has(chunkId)) || t.heard.some((s) => s.in.has(chunkId))
  const skipped = new Set<number>()
  evidence.forEach((t, i) => {
    if (!t.parts) return
    if (holds(t)) t.parts.forEach((p) => skipped.add(p))
    else skipped.add(i)
  })
  let total = 0
  let found = 0
  evidence.forEach((t, i) => {
    if (!t.own.length || skipped.has(i)) return
    total += t.weight
    if (holds(t)) found += t.weight
  })
  return total > 0 ? found / total : 0
}
