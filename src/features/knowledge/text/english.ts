// How much a word says, in bits: -log2 of how often it is said in American English
// (spoken-english.txt, SUBTLEX-US). "tomorrow" says little (11.5 bits), "paternity" much (20).
// The table loads on first use. Pure.
import table from './spoken-english.txt' with { type: 'text' }

let counts: Map<string, number> | undefined
let total = 1

function load(): Map<string, number> {
  const map = new Map<string, number>()
  const lines = table.split('\n')
  total = Number(/total (\d+)/.exec(lines[0] ?? '')?.[1] ?? 1)
  for (let i = 1; i < lines.length; i++) {
    const at = lines[i]!.indexOf(' ')
    if (at > 0) map.set(lines[i]!.slice(0, at), Number(lines[i]!.slice(at + 1)))
  }
  return map
}

/** Bits of a word or phrase (its most telling word); a word not in the table counts as said 4 times. */
export function spokenBits(said: string): number {
  counts ??= load()
  let most = 0
  for (const word of said.split(' ')) most = Math.max(most, Math.log2(total / (counts.get(word) ?? 4)))
  return most
}
