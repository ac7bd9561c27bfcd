import { CALLER_PHRASINGS, VOCABULARY_FRAMES } from './phrasings.ts'

/** What an agent's language model is made from: the words its callers are likely to say. */
export interface LmSource {
  /** The workflow's keywords, intents' phrasings and nodes' texts. */
  workflow: readonly string[]
  /** The agent's prompt: only the names in it (capitalised words past a sentence's start) are taken. */
  prompt: string
  vocabulary: readonly string[]
  /** Its knowledge bases' passages and FAQ questions. */
  knowledge: readonly string[]
}

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']

/** Lower-case words as a recogniser writes them: digits spelt, punctuation gone, apostrophes kept inside words. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFKC')
    .replace(/\d/g, (d) => ` ${ONES[Number(d)]} `)
    .replace(/[^a-z' ]+/g, ' ')
    .replace(/(^|\s)'+|'+(?=\s|$)/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
}

/** Sentences of a text (cut at full stops, question marks, exclamation marks and lines). */
function sentences(text: string): string[] {
  return text.split(/[.?!;\n]+/)
}

/** Names of a prompt: capitalised words that do not open a sentence ("Dr Okafor", "Brightsmile"). */
export function promptNames(prompt: string): string[] {
  const names: string[] = []
  for (const s of sentences(prompt)) {
    const tokens = s.trim().split(/\s+/).slice(1)
    for (const t of tokens) if (/^[A-Z][a-z]+/.test(t) && t !== 'I') names.push(t.replace(/[^A-Za-z']/g, ''))
  }
  return [...new Set(names)]
}

/** The sentences the agent's model is counted from, each a list of words. */
export function corpusOf(source: LmSource): string[][] {
  const texts = [
    ...source.workflow.flatMap(sentences),
    ...source.knowledge.flatMap(sentences),
    ...CALLER_PHRASINGS,
    ...[...source.vocabulary, ...promptNames(source.prompt)].flatMap((v) => VOCABULARY_FRAMES.map((f) => f.replace('{}', v))),
  ]
  return texts.map(words).filter((s) => s.length > 0)
}
