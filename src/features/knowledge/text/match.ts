// Which of a query's forms and sounds a passage holds, worked out here rather than by one more
// full-text lookup per form: the passage's words are split and stemmed as the SQLite index does
// (unicode61 without diacritics, then Porter's stemmer for English; PostgreSQL's english
// dictionary stems a little differently, which moves a score, never what is found). Pure.
import { stemmer } from 'stemmer'
import type { Form } from './query.ts'
import { soundsOf } from './sounds.ts'

export interface PassageWords {
  /** The passage's words, stemmed when English, in order. */
  stems: string[]
  set: Set<string>
  /** Sound keys of its words (English). */
  sounds: Set<string>
}

const ASCII = /^[\x00-\x7f]*$/

const split = (text: string) =>
  ASCII.test(text)
    ? text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)
    : text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)

/** `sounds`: the passage's stored sound keys (knowledge_chunks.sounds), when at hand. */
export function passageWords(text: string, english: boolean, sounds?: string): PassageWords {
  const stems = split(text).map((w) => (english ? stemmer(w) : w))
  return { stems, set: new Set(stems), sounds: english ? new Set((sounds ?? soundsOf(text)).split(' ')) : new Set() }
}

/** Whether the passage holds the form: a word by its stem, a phrase as its stems in a row, a prefix at the start of a word. */
export function holdsForm(p: PassageWords, form: Form, english: boolean): boolean {
  const words = split(form.phrase)
  if (!words.length) return false
  if (form.prefix) return p.stems.some((s) => s.startsWith(words[0]!))
  const stems = words.map((w) => (english ? stemmer(w) : w))
  if (stems.length === 1) return p.set.has(stems[0]!)
  if (!stems.every((s) => p.set.has(s))) return false
  for (let i = 0; i + stems.length <= p.stems.length; i++) if (stems.every((s, k) => p.stems[i + k] === s)) return true
  return false
}
