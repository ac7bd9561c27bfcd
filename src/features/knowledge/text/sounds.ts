// How a word sounds, roughly: a key that words a speech recogniser confuses share ("farm see" and
// "pharmacy", "re salts" and "results", "a point meant" and "appointment"). Consonants only, the
// first letter's vowel kept as "a", spellings of one sound made one ("ph" f, "c" before e/i/y s,
// "ck" k, "th" t), voiced and voiceless pairs merged (b p, d t, g k, v f, z s), "t"/"d" between
// "n" and "s" dropped (patients, patience), repeats collapsed. Our own simplification in the
// spirit of Metaphone; English only. Pure.

const VOWEL = /[aeiouy]/

/** Spellings rewritten before letters are mapped, longest first. */
const SPELLINGS: [RegExp, string][] = [
  [/x/g, 'ks'],
  [/tch/g, 'ch'],
  [/sch/g, 'sk'],
  [/(t|s)ion/g, 'xn'],
  [/ph/g, 'f'],
  [/gh(?![aeiou])/g, ''],
  [/ck/g, 'k'],
  [/dg/g, 'j'],
  [/qu/g, 'kw'],
  [/wh/g, 'w'],
  [/(sh|ch)/g, 'x'],
  [/th/g, 't'],
  [/c(?=[eiy])/g, 's'],
]

const MERGED: Record<string, string> = { b: 'p', d: 't', g: 'k', v: 'f', z: 's', c: 'k', q: 'k', j: 'x' }

/** Keys of words already sounded: a document says the same words over and over. */
const known = new Map<string, string>()
const KNOWN_MAX = 50_000

/** The sound key of a word of letters, '' when it has none (a word of vowels). */
export function soundKey(word: string): string {
  const hit = known.get(word)
  if (hit !== undefined) return hit
  const key = keyOf(word)
  if (known.size >= KNOWN_MAX) known.clear()
  known.set(word, key)
  return key
}

function keyOf(word: string): string {
  let w = word.toLowerCase().replace(/[^a-z]/g, '')
  if (!w) return ''
  w = w.replace(/^(kn|gn|pn|wr|ps)/, (m) => m[1]!)
  for (const [from, to] of SPELLINGS) w = w.replace(from, to)
  let key = VOWEL.test(w[0]!) && w[0] !== 'y' ? 'a' : ''
  for (let i = 0; i < w.length; i++) {
    const ch = w[i]!
    if (VOWEL.test(ch) && !(ch === 'y' && i === 0)) continue
    // w and y sound only before a vowel, h only after none
    if ((ch === 'w' || ch === 'y') && !VOWEL.test(w[i + 1] ?? '')) continue
    if (ch === 'h' && i > 0) continue
    const c = MERGED[ch] ?? ch
    if (key[key.length - 1] !== c) key += c
  }
  return key.replace(/n(t)(s)/g, 'ns')
}

/** Shortest key matched as a sound: shorter ones ("fr", "kl") are shared by too many words. */
export const MIN_SOUND = 3

/** The sound keys of a passage's words, each once: what its sounds are searched by. */
export function soundsOf(text: string): string {
  const keys = new Set<string>()
  for (const word of text.toLowerCase().split(/[^a-z]+/)) {
    const key = soundKey(word)
    if (key.length >= MIN_SOUND) keys.add(key)
  }
  return [...keys].join(' ')
}
