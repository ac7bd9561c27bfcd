// A passage as the agent can say it: no markup, no URLs, whole sentences, at most a length. When
// the passage is longer, the sentences said are the run that holds most of the caller's words,
// so an answer in a passage's third sentence is not cut away. Pure.
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

/** Whether a sentence holds a term: words compared by their first five letters, a cheap stem. */
const stem = (word: string) => word.slice(0, 5)

/** The passage as said: speakable, whole sentences, at most `maxChars` (one sentence is cut at a word if it alone is longer). */
export function spokenAnswer(passage: string, terms: string[], maxChars = DEFAULT_MAX_CHARS): string {
  const all = sentences(speakableText(passage))
  if (!all.length) return ''
  const wanted = new Set(terms.map(stem))
  const hits = all.map((s) => [...new Set(s.toLowerCase().split(/[^\p{L}\p{N}]+/u).map(stem))].filter((w) => wanted.has(w)).length)
  let best = { from: 0, to: 0, score: -1 }
  for (let from = 0; from < all.length; from++) {
    let length = 0
    let score = 0
    for (let to = from; to < all.length; to++) {
      length += all[to]!.length + (to > from ? 1 : 0)
      if (length > maxChars && to > from) break
      score += hits[to]!
      // ties go to the earlier run: a passage's opening usually frames it
      if (score > best.score) best = { from, to: to + 1, score }
    }
  }
  const said = all.slice(best.from, best.to).join(' ')
  if (said.length <= maxChars) return said
  const cut = said.lastIndexOf(' ', maxChars - 1)
  return `${said.slice(0, cut > 0 ? cut : maxChars).replace(/[,;:]$/, '')}…`
}
