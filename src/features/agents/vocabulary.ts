import type { FieldIssue } from '../../platform/errors.ts'

/** Letters (any script), digits, and the apostrophes, hyphens, dots and ampersands inside names. */
const ENTRY = /^[\p{L}\p{N}][\p{L}\p{N}'’\-.& ]*$/u
const MAX_WORDS = 6

/**
 * An agent's vocabulary as stored: each entry trimmed, its inner spaces collapsed. Entries a
 * recogniser cannot listen for (no letter, punctuation of their own, more than a short phrase)
 * and entries listed twice (ignoring case) are issues.
 */
export function vocabularyOf(entries: readonly string[]): { words: string[]; issues: FieldIssue[] } {
  const issues: FieldIssue[] = []
  const seen = new Map<string, number>()
  const words = entries.map((raw, i) => {
    const w = raw.trim().replace(/\s+/g, ' ')
    const path = `vocabulary[${i}]`
    if (!w || !/\p{L}/u.test(w)) issues.push({ path, message: 'needs a word with letters' })
    else if (!ENTRY.test(w)) issues.push({ path, message: "holds characters no one says: letters, digits, spaces and ' - . & only" })
    else if (w.split(' ').length > MAX_WORDS) issues.push({ path, message: `is longer than a phrase of ${MAX_WORDS} words` })
    const key = w.toLowerCase()
    const first = seen.get(key)
    if (w && first !== undefined) issues.push({ path, message: `repeats vocabulary[${first}]` })
    else seen.set(key, i)
    return w
  })
  return { words, issues }
}
