// How sure a passage answers a caller: the share of what the caller said that the passage holds,
// in any of its forms or by sound. Each term weighs by how much it says in spoken English
// (english.ts) times how rare it is among the searched passages (its IDF over the IDF of a word
// none holds): "what time do you close on saturday" is all there in a passage with close and
// Saturday; in "is there a paternity test at the lab" the telling word is missing from every
// passage, and test and lab, common in a clinic's documents, say little. Pure.
import { spokenBits } from './english.ts'
import { holdsForm, type PassageWords } from './match.ts'
import type { CallerQuery, Form, SoundTerm } from './query.ts'

export interface TermEvidence {
  /** The term's forms the engine keeps (a stop word of its dictionary is dropped), with their passage counts. */
  forms: { form: Form; df: number }[]
  /** Sound keys standing for it, with their passage counts. */
  sounds: { key: string; df: number }[]
  /** How much the term says (bits times rarity). */
  weight: number
  /** A phrase: its words' terms. */
  parts?: number[]
}

/** BM25's inverse document frequency among `passages`: rarer weighs more, never below zero. */
const idf = (passages: number, df: number) => Math.log(1 + (passages - df + 0.5) / (df + 0.5))

/**
 * Per term of the query: its forms' passage counts (`formDf`, in the order of the terms' forms;
 * null: dropped by the engine) and the sounds covering it, among `passages` searched passages.
 */
export function evidenceOf(query: CallerQuery, formDf: (number | null)[], sounds: SoundTerm[], soundDf: number[], passages: number): TermEvidence[] {
  let at = 0
  return query.terms.map((term, i) => {
    const forms = term.forms.flatMap((form, k) => (formDf[at + k] === null || formDf[at + k] === undefined ? [] : [{ form, df: formDf[at + k]! }]))
    at += term.forms.length
    const heard = sounds.flatMap((s, j) => (s.covers.includes(i) ? [{ key: s.key, df: soundDf[j] ?? 0 }] : []))
    const df = Math.min(...[...forms, ...heard].map((s) => s.df || Infinity))
    const rarity = Number.isFinite(df) ? idf(passages, df) / idf(passages, 0) : 1
    return { forms, sounds: heard, weight: spokenBits(term.said) * rarity, parts: term.parts }
  })
}

/** Terms no passage holds in any form. */
export const unknownTerms = (evidence: TermEvidence[]) => evidence.flatMap((t, i) => (t.forms.length && t.forms.every((f) => f.df === 0) ? [i] : []))

/**
 * Terms few passages hold (at most `rare` in any form): with the unknown ones, the words a
 * recogniser may have misheard ("a point meant" is two rare words where "appointment" is common).
 */
export const rareTerms = (evidence: TermEvidence[], rare: number) => evidence.flatMap((t, i) => (t.forms.length && t.forms.every((f) => f.df <= rare) ? [i] : []))

/** 0..1. A phrase the passage holds ("house calls" as "home visit") counts instead of its words; one it does not hold counts as its words. */
export function confidence(passage: PassageWords, evidence: TermEvidence[], english: boolean): number {
  const holds = (t: TermEvidence) => t.forms.some((f) => f.df > 0 && holdsForm(passage, f.form, english)) || t.sounds.some((s) => s.df > 0 && passage.sounds.has(s.key))
  const skipped = new Set<number>()
  evidence.forEach((t, i) => {
    if (!t.parts) return
    if (holds(t)) t.parts.forEach((p) => skipped.add(p))
    else skipped.add(i)
  })
  let total = 0
  let found = 0
  evidence.forEach((t, i) => {
    if (!t.forms.length || skipped.has(i)) return
    total += t.weight
    if (holds(t)) found += t.weight
  })
  return total > 0 ? found / total : 0
}
