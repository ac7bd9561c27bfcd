// Other words for a caller's word, from WordNet (wordnet.txt, written by
// scripts/knowledge/wordnet-synonyms.ts): "fridge" -> refrigerator, "kid" -> child. The
// hand-written caller-words.ts comes first: it knows phrases and this business's words. Loads on
// first use. Pure.
import table from './wordnet.txt' with { type: 'text' }

let synonyms: Map<string, string[]> | undefined

function load(): Map<string, string[]> {
  const map = new Map<string, string[]>()
  for (const line of table.split('\n')) {
    const at = line.indexOf(': ')
    if (at > 0 && !line.startsWith('#')) map.set(line.slice(0, at), line.slice(at + 2).split(', '))
  }
  return map
}

/** WordNet's words for `word` (lowercase), commonest sense first; none for a word it does not know. */
export function wordnetSynonyms(word: string): readonly string[] {
  synonyms ??= load()
  return synonyms.get(word) ?? []
}
