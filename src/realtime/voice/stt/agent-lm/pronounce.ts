import { readFile } from 'node:fs/promises'

/** The en-us phones flite's letter-to-sound rules write that the acoustic model names otherwise. */
const FLITE_TO_CMU: Record<string, string> = { ax: 'AH', axr: 'ER' }
const CMU_PHONES = new Set(
  'AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH'.split(' '),
)

const dictionaries = new Map<string, Promise<Set<string>>>()

/** The words of a pocketsphinx dictionary (alternates folded into their word), read once per file. */
export function dictionaryWords(file: string): Promise<Set<string>> {
  let words = dictionaries.get(file)
  if (!words) {
    words = readFile(file, 'utf8').then((text) => new Set(text.split('\n').map((l) => l.split(' ')[0]!.replace(/\(\d+\)$/, ''))))
    dictionaries.set(file, words)
  }
  return words
}

/** flite's phones ("pau z eh1 f er ax n pau") as the acoustic model's ("Z EH F ER AH N"); undefined when one is unknown. */
export function cmuPhones(flite: string): string | undefined {
  const phones = flite
    .trim()
    .split(/\s+/)
    .filter((p) => p && p !== 'pau')
    .map((p) => {
      const bare = p.replace(/\d$/, '')
      return FLITE_TO_CMU[bare] ?? bare.toUpperCase()
    })
  return phones.length && phones.every((p) => CMU_PHONES.has(p)) ? phones.join(' ') : undefined
}

/** A word's phones by flite's letter-to-sound rules (its `t2p`), in a child process; undefined when t2p is missing or fails. */
export async function letterToSound(word: string): Promise<string | undefined> {
  try {
    const child = Bun.spawn(['t2p', word], { stdout: 'pipe', stderr: 'ignore' })
    const out = await new Response(child.stdout).text()
    if ((await child.exited) !== 0) return undefined
    return cmuPhones(out)
  } catch {
    return undefined
  }
}
