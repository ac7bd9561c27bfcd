// A caller's words as a search: which words count (stop words and a caller's fillers do not),
// the words documents use for them (caller-words.ts), a prefix for long words (complain* finds
// complaint), and, for words no passage holds, how they sound (sounds.ts). Only letters and
// digits pass into a query, so no caller text ever reaches a query language as syntax. Pure.
import { CALLER_WORDS, MAX_PHRASE_WORDS } from './caller-words.ts'
import { wordnetSynonyms } from './lexicon.ts'
import { MIN_SOUND, soundKey } from './sounds.ts'

/** English stop words and what callers say around a question. */
const STOP = new Set(
  `a about above after again all also am an and any are as at be been before being below between both but by can could did do does doing done
  down during each few for from further get gets getting got had has have having he her here hers him his how i if in into is it its itself just
  let lets me more most my no nor not now of off on once only or other our ours out over own please same she should so some such than thank thanks
  that the their them then there these they this those through to too under until up very was we were what when where which while who whom why
  will with would you your yours yourself um uh er erm hmm hi hello hey yeah yes yep ok okay well like really actually maybe wondering wonder
  guys guy tell know want wanted need needs im ive id youre dont doesnt cant wont isnt aren arent one anything something someone anyone kind sort
  quick question ask asking call calling help see take takes taking way go goes going think back much many lot lots little pretty stuff thing things
  somebody somewhere anybody anywhere gotta gonna wanna re ve ll guess mean bit whats wheres hows thats theres heres whos its
  supposed kinda sorta basically literally honestly totally probably right alright anyway anyways just gotcha cause cuz ya yall
  gimme lemme dunno hafta gotten`.split(/\s+/),
)

/** WordNet's words for a caller's word, at most: each is one more passage count per search. */
const MAX_WORDNET_FORMS = 2

/** Terms of a query at most: a caller's turn is a sentence or two. */
const MAX_TERMS = 16
/** Words of a caller's turn looked at at most. */
const MAX_WORDS = 40
/** A word this long also matches words it begins (complain -> complaint). */
const PREFIX_FROM = 6

export interface Form {
  /** One word or several (a phrase), lowercase letters and digits. */
  phrase: string
  prefix: boolean
  /** One of WordNet's words for it: searched only when no passage holds the word as said (search/index.ts). */
  wordnet?: boolean
}

export interface QueryTerm {
  /** What the caller said: a word, or a phrase of caller-words.ts. */
  said: string
  /** Ways a passage may hold it: as said, as documents say it, as a prefix. */
  forms: Form[]
  /** A phrase: the indexes of the terms of its words, which a passage holding the phrase need not hold. */
  parts?: number[]
}

export interface SoundTerm {
  key: string
  /** Indexes of the terms it stands for. */
  covers: number[]
}

export interface CallerQuery {
  english: boolean
  /** All words of the turn, in order (stop words too: "a point meant" is one word misheard). */
  words: string[]
  terms: QueryTerm[]
}

export const wordsOf = (text: string) =>
  text.toLowerCase().normalize('NFKC').replace(/['’]/g, '').split(/[^\p{L}\p{N}]+/u).filter(Boolean).slice(0, MAX_WORDS)

const isTerm = (word: string, english: boolean) => (word.length >= 2 || /\d/.test(word)) && !(english && STOP.has(word))

function formsOf(said: string, english: boolean): Form[] {
  const forms: Form[] = [{ phrase: said, prefix: false }]
  if (english && !said.includes(' ') && said.length >= PREFIX_FROM && /^[a-z]+$/.test(said)) forms.push({ phrase: said, prefix: true })
  const add = (alt: string, wordnet: boolean) => {
    const phrase = wordsOf(alt).join(' ')
    if (phrase && !forms.some((f) => f.phrase === phrase && !f.prefix)) forms.push(wordnet ? { phrase, prefix: false, wordnet } : { phrase, prefix: false })
  }
  if (!english) return forms
  for (const alt of CALLER_WORDS.get(said) ?? []) add(alt, false)
  for (const alt of wordnetSynonyms(said).filter((w) => !w.split(' ').every((x) => STOP.has(x))).slice(0, MAX_WORDNET_FORMS)) add(alt, true)
  return forms
}

export function callerQuery(text: string, english: boolean): CallerQuery {
  const words = wordsOf(text)
  const terms: QueryTerm[] = []
  const phrases: string[] = []
  const add = (said: string) => {
    if (terms.length < MAX_TERMS && !terms.some((t) => t.said === said)) terms.push({ said, forms: formsOf(said, english) })
  }
  for (let i = 0; i < words.length; i++) {
    // a caller phrase ("house calls") is a term of its own, beside its words
    for (let n = english ? MAX_PHRASE_WORDS : 1; n >= 2; n--) {
      const phrase = words.slice(i, i + n).join(' ')
      if (i + n <= words.length && CALLER_WORDS.has(phrase)) add(phrase), phrases.push(phrase)
    }
    if (isTerm(words[i]!, english)) add(words[i]!)
  }
  for (const t of terms) {
    if (!phrases.includes(t.said)) continue
    const parts = t.said.split(' ').map((w) => terms.findIndex((x) => x.said === w)).filter((i) => i >= 0)
    if (parts.length) t.parts = parts
  }
  return { english, words, terms }
}

/** Runs of words whose joined sound is searched; a join needs a longer key to count. */
const JOIN_WORDS = 4
const MIN_JOINED_SOUND = 4

/** Sound keys searched at most: each is one more full-text lookup. */
const MAX_SOUNDS = 12

/**
 * Sound keys of the words a recogniser may have misheard: each term no passage holds in any form
 * (`unknown`), alone, and runs of words holding such a term or a rare one (`rare`) run together
 * ("farm see" -> pharmacy, "a point meant" -> appointment). Indexes of terms; English only.
 */
export function soundsFor(query: CallerQuery, unknown: number[], rare: number[] = unknown): SoundTerm[] {
  if (!query.english) return []
  const lost = new Set(unknown.map((i) => query.terms[i]!.said))
  const doubtful = new Set([...unknown, ...rare].map((i) => query.terms[i]!.said))
  const sounds: SoundTerm[] = []
  const words = query.words
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= JOIN_WORDS && i + n <= words.length; n++) {
      const run = words.slice(i, i + n)
      if (n === 1 ? !lost.has(run[0]!) : !run.some((w) => doubtful.has(w))) continue
      if (!run.every((w) => /^[a-z]+$/.test(w))) continue
      const key = soundKey(run.join(''))
      if (key.length < (n === 1 ? MIN_SOUND : MIN_JOINED_SOUND)) continue
      const covers = run.map((w) => query.terms.findIndex((t) => t.said === w)).filter((x) => x >= 0)
      const have = sounds.find((s) => s.key === key)
      if (have) have.covers = [...new Set([...have.covers, ...covers])]
      else sounds.push({ key, covers })
    }
  }
  return sounds.slice(0, MAX_SOUNDS)
}
