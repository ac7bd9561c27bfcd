/** A bigram model in ARPA of `sentences` (each a list of words). */
export interface Bigram {
  arpa: string
  /** Distinct words, <s> and </s> included. */
  words: number
  bigrams: number
}

/** Absolute discount of each seen bigram. */
const DISCOUNT = 0.5

/** Seen bigrams discounted, the rest backing off to an add-one unigram. */
export function bigramArpa(sentences: readonly (readonly string[])[]): Bigram {
  const uni = new Map<string, number>()
  const bi = new Map<string, Map<string, number>>()
  let tokens = 0
  for (const s of sentences) {
    const ws = ['<s>', ...s, '</s>']
    ws.forEach((w, i) => {
      uni.set(w, (uni.get(w) ?? 0) + 1)
      tokens++
      if (i === 0) return
      const next = bi.get(ws[i - 1]!) ?? new Map<string, number>()
      next.set(w, (next.get(w) ?? 0) + 1)
      bi.set(ws[i - 1]!, next)
    })
  }
  if (!uni.has('<s>')) uni.set('<s>', 0).set('</s>', 0)
  const p1 = (w: string) => ((uni.get(w) ?? 0) + 1) / (tokens + uni.size)
  const log = (x: number) => Math.log10(x).toFixed(4)
  const ones: string[] = []
  const twos: string[] = []
  for (const w of uni.keys()) {
    const next = bi.get(w)
    let backoff = 0
    if (next) {
      const count = [...next.values()].reduce((a, b) => a + b, 0)
      const covered = [...next.keys()].reduce((a, x) => a + p1(x), 0)
      backoff = Math.log10((DISCOUNT * next.size) / count / Math.max(1e-6, 1 - covered))
      for (const [x, c] of next) twos.push(`${log((c - DISCOUNT) / count)} ${w} ${x}`)
    }
    ones.push(`${w === '<s>' ? '-99' : log(p1(w))} ${w} ${backoff.toFixed(4)}`)
  }
  const arpa = `\\data\\\nngram 1=${ones.length}\nngram 2=${twos.length}\n\n\\1-grams:\n${ones.join('\n')}\n\n\\2-grams:\n${twos.join('\n')}\n\n\\end\\\n`
  return { arpa, words: uni.size, bigrams: twos.length }
}
