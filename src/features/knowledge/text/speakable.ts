// A passage as the agent can say it: no markup, no URLs, whole sentences, at most a length. When
// the passage is longer, what is said starts at the sentence that answers: the one holding most of
// the caller's words and, for a question that asks for a time, an amount, a yes or no or a place
// (answer-kind.ts), stating one; the sentences after it follow while they fit. Pure.
import { type AnswerKind, statesKind } from './answer-kind.ts'
import { spokenBits } from './english.ts'
import { plainMarkdown } from './outline.ts'
import { sentences } from './chunk.ts'

/** Characters an answer holds at most by default: about 20 s of speech. */
const DEFAULT_MAX_CHARS = 300

export function speakableText(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      plainMarkdown(line.replace(/^\s{0,3}#{1,6}\s+/, '').replace(/^\s*([-*+]|\d+[.)])\s+/, ''))
        .replace(/<[^>]*>/g, ' ')
        .replace(/\b(?:https?:\/\/|www\.)\S+/gi, '')
        .replace(/\(\s*\)/g, '')
        .replace(/[\s,;:]+$/, '')
        .trim(),
    )
    .filter(Boolean)
    .map((line) => (/[.!?…]$/.test(line) ? line : `${line}.`))
    .join(' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
}

/** Whether a sentence holds a term: words compared by their first five letters (a cheap stem), or the term begins the word (pay, payment). */
const stem = (word: string) => word.slice(0, 5)
const holds = (word: string, term: string) => stem(word) === stem(term) || (term.length >= 3 && word.startsWith(term))

/** The bits of the caller's words a sentence holds, each word once. */
function sentenceBits(words: Set<string>, wanted: Map<string, number>): number {
  let bits = 0
  for (const [term, b] of wanted) if ([...words].some((w) => holds(w, term))) bits += b
  return bits
}

/** Sentences either side of the one holding the caller's words looked at for the fact asked. */
const NEAR = 2

/**
 * The passage as said: speakable, whole sentences, at most `maxChars` (one sentence is cut at a
 * word if it alone is longer). It holds the sentence with most of the caller's words and, for a
 * question of `kind`, the nearest sentence stating that kind of fact (answer-kind.ts), or only
 * that one when both do not fit; then the sentences after, while they fit.
 */
export function spokenAnswer(passage: string, terms: string[], maxChars = DEFAULT_MAX_CHARS, kind: AnswerKind = 'other'): string {
  const all = sentences(speakableText(passage))
  if (!all.length) return ''
  const wanted = new Map<string, number>()
  for (const t of terms) wanted.set(t, Math.max(wanted.get(t) ?? 0, spokenBits(t)))
  const words = all.map((s) => new Set(s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)))
  // a word in every sentence of the passage (its topic) tells none of them apart
  for (const [term, b] of wanted) {
    const df = words.filter((ws) => [...ws].some((w) => holds(w, term))).length
    wanted.set(term, df ? b * Math.log((1 + all.length) / df) : 0)
  }
  const bits = words.map((ws) => sentenceBits(ws, wanted))
  // ties go to the earlier sentence: a passage's opening usually frames it
  let anchor = 0
  bits.forEach((b, i) => b > bits[anchor]! && (anchor = i))
  let fact = anchor
  let plain = statesKind(all[anchor]!, kind)
  for (const i of [1, -1, 2, -2].filter((d) => Math.abs(d) <= NEAR).map((d) => anchor + d)) {
    const p = i >= 0 && i < all.length ? statesKind(all[i]!, kind) : 0
    if (p > plain) (fact = i), (plain = p)
  }
  const length = (a: number, b: number) => all.slice(a, b).join(' ').length
  let from = Math.min(anchor, fact)
  let to = Math.max(anchor, fact) + 1
  if (length(from, to) > maxChars) (from = fact), (to = fact + 1)
  while (to < all.length && length(from, to + 1) <= maxChars) to++
  const said = all.slice(from, to).join(' ')
  if (said.length <= maxChars) return said
  const cut = said.lastIndexOf(' ', maxChars - 1)
  return `${said.slice(0, cut > 0 ? cut : maxChars).replace(/[,;:]$/, '')}…`
}
