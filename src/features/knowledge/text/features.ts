// What a passage shows of answering a caller, as numbers a calibrated model weighs
// (search/calibration.ts): the share of the caller's words it holds, weighted by how much each
// says (coverage, confidence.ts) and counted plainly; whether it holds the most telling one;
// the share held in its document title and section heading; and the share of the caller's words
// that no passage of the base holds at all (a question about something the documents never
// mention). The margin over the runner-up is added by the search, which sees all candidates. Pure.
import { confidence, type TermEvidence } from './confidence.ts'
import { holdsForm, type PassageWords } from './match.ts'

export interface PassageFeatures {
  /** 0..1: the weighted share of the caller's words held (confidence.ts). */
  coverage: number
  /** 0..1: the share of the caller's words held, each counted once. */
  plainCoverage: number
  /** 1 when it holds the caller's most telling word. */
  telling: number
  /** 0..1: the weighted share held in its title and section heading. */
  heading: number
  /** 0..1: the weighted share of the caller's words no passage holds. */
  unknown: number
  /** 0..1: the weight of the most telling word it does not hold, as a share of all. */
  missing: number
  /** 0..1: how many words the caller said that count (eight or more: 1). */
  terms: number
}

const heldBy = (p: PassageWords, t: TermEvidence, english: boolean) =>
  t.forms.some((f) => f.df > 0 && holdsForm(p, f.form, english)) || t.sounds.some((s) => s.df > 0 && p.sounds.has(s.key))

export function passageFeatures(passage: PassageWords, heading: PassageWords, evidence: TermEvidence[], english: boolean): PassageFeatures {
  const counted = evidence.filter((t) => t.forms.length && !t.parts)
  const total = counted.reduce((s, t) => s + t.weight, 0)
  const telling = counted.reduce<TermEvidence | undefined>((best, t) => (!best || t.weight > best.weight ? t : best), undefined)
  const share = (f: (t: TermEvidence) => boolean, weighted: boolean) => {
    const of = counted.filter(f).reduce((s, t) => s + (weighted ? t.weight : 1), 0)
    return (weighted ? total : counted.length) > 0 ? of / (weighted ? total : counted.length) : 0
  }
  return {
    coverage: confidence(passage, evidence, english),
    plainCoverage: share((t) => heldBy(passage, t, english), false),
    telling: telling && heldBy(passage, telling, english) ? 1 : 0,
    heading: share((t) => heldBy(heading, t, english), true),
    unknown: share((t) => t.forms.every((f) => f.df === 0) && t.sounds.every((s) => s.df === 0), true),
    missing: total > 0 ? Math.max(0, ...counted.filter((t) => !heldBy(passage, t, english)).map((t) => t.weight)) / total : 0,
    terms: Math.min(1, counted.length / 8),
  }
}
