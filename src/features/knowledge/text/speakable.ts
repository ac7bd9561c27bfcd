// A passage as the agent can say it: no markup, no URLs, whole sentences, at most a length. When
// the passage is longer, what is said is the run of sentences that fits and answers best: it holds
// most of the caller's words and, for a question that asks for a time, an amount, a yes or no or a
// place (answer-kind.ts), states one. Pure.
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

/** How much a window's first sentence counts again: a passage's answer usually opens with the words asked about. */
const OPENING = 0.25
/**
 * What stating the kind of fact asked counts against the caller's words' 1: words around one
 * (answer-kind.ts's 1) a little, the fact itself (2: a price, a clock time, a phone number) more
 * than all the caller's words, so a "how much" hears the price rather than the sentence naming
 * what is priced.
 */
const STATES = 0.15
const EXACT = 1.5
const stating = (k: number) => (k >= 2 ? EXACT : k * STATES)

/**
 * The passage as said: speakable, whole sentences, at most `maxChars` (one sentence is cut at a
 * word if it alone is longer). Of the runs of sentences that fit, the one said holds most of the
 * caller's words (each once, weighted by how much it says and how few of the passage's sentences
 * hold it: a word in every sentence is the passage's topic and tells none apart), its first
 * sentence's again counting a little, and, for a question of `kind`, a sentence stating that kind
 * of fact (answer-kind.ts); ties go to the earlier run.
 */
export function spokenAnswer(passage: string, terms: string[], maxChars = DEFAULT_MAX_CHARS, kind: AnswerKind = 'other'): string {
  const all = sentences(speakableText(passage))
  if (!all.length) return ''
  const words = all.map((s) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean))
  const held = all.map(() => new Set<string>())
  const weight = new Map<string, number>()
  for (const t of new Set(terms)) {
    const at = words.flatMap((ws, i) => (ws.some((w) => holds(w, t)) ? [i] : []))
    if (!at.length) continue
    weight.set(t, spokenBits(t) * Math.log((1 + all.length) / at.length))
    for (const i of at) held[i]!.add(t)
  }
  const total = [...weight.values()].reduce((a, b) => a + b, 0) || 1
  const share = (ts: Iterable<string>) => [...ts].reduce((s, t) => s + weight.get(t)!, 0) / total
  const states = all.map((s) => statesKind(s, kind))
  let best = { score: -1, from: 0, to: 1 }
  for (let from = 0, to = 1; from < all.length; from++) {
    to = Math.max(to, from + 1)
    while (to < all.length && all.slice(from, to + 1).join(' ').length <= maxChars) to++
    const window = held.slice(from, to)
    const score = share(new Set(window.flatMap((h) => [...h]))) + OPENING * share(held[from]!) + stating(Math.max(...states.slice(from, to)))
    if (score > best.score + 1e-9) best = { score, from, to }
  }
  const said = all.slice(best.from, best.to).join(' ')
  if (said.length <= maxChars) return said
  const cut = said.lastIndexOf(' ', maxChars - 1)
  return `${said.slice(0, cut > 0 ? cut : maxChars).replace(/[,;:]$/, '')}…`
}
