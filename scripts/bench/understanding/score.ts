// Word error rate as the bench scores it: both sides normalised (case, punctuation, numbers
// written as words, a few spellings made one), then a word-level Levenshtein alignment that
// counts substitutions, deletions and insertions. Pure.

const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen']
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety']

/** A whole number as it is said: 240 "two hundred forty", 1100 "one thousand one hundred". */
export function numberWords(n: number): string {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`not a whole number: ${n}`)
  if (n < 20) return ONES[n]!
  if (n < 100) return TENS[Math.floor(n / 10)]! + (n % 10 ? ` ${ONES[n % 10]}` : '')
  if (n < 1000) return `${ONES[Math.floor(n / 100)]} hundred${n % 100 ? ` ${numberWords(n % 100)}` : ''}`
  if (n < 1_000_000) return `${numberWords(Math.floor(n / 1000))} thousand${n % 1000 ? ` ${numberWords(n % 1000)}` : ''}`
  return String(n).split('').map((d) => ONES[Number(d)]).join(' ')
}

/** Spellings that are the same word. */
const SAME: Record<string, string> = { ok: 'okay', alright: 'all right', mhm: 'mm hmm', hmm: 'hm', uhhuh: 'uh huh', gonna: 'going to', wanna: 'want to' }

/**
 * Lower case; "$40" forty dollars, "15%" fifteen percent, "12:30" twelve thirty, other digits as
 * words (a run of more than six digits digit by digit); hyphens and punctuation become spaces,
 * apostrophes inside words stay ("don't").
 */
export function normalise(text: string): string[] {
  let s = text.toLowerCase().normalize('NFKC')
  s = s.replace(/\$(\d+)/g, (_, d) => `${d} dollars`).replace(/(\d+)\s*%/g, (_, d) => `${d} percent`)
  s = s.replace(/(\d{1,2}):(\d{2})/g, (_, h, m) => `${h} ${m === '00' ? "o'clock" : Number(m) < 10 ? `oh ${Number(m)}` : m}`)
  s = s.replace(/\d+/g, (d) => ` ${d.length > 6 ? d.split('').map((x) => ONES[Number(x)]).join(' ') : numberWords(Number(d))} `)
  s = s.replace(/[^a-z' ]+/g, ' ').replace(/(^|\s)'+|'+(?=\s|$)/g, ' ')
  const words = s.split(/\s+/).filter(Boolean)
  return words.flatMap((w) => (SAME[w] ?? w).split(' '))
}

export interface WordErrors {
  /** Words in the reference. */
  ref: number
  sub: number
  del: number
  ins: number
}

export const errorsOf = (e: WordErrors) => e.sub + e.del + e.ins

/** The alignment of `hyp` against `ref` with the fewest edits; ties prefer substitutions. */
export function wordErrors(ref: string, hyp: string): WordErrors {
  const a = normalise(ref)
  const b = normalise(hyp)
  // cost[i][j] and the edit counts along the best path to it
  type Cell = { cost: number; sub: number; del: number; ins: number }
  let row: Cell[] = Array.from({ length: b.length + 1 }, (_, j) => ({ cost: j, sub: 0, del: 0, ins: j }))
  for (let i = 1; i <= a.length; i++) {
    const next: Cell[] = [{ cost: i, sub: 0, del: i, ins: 0 }]
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1]
      const diag = row[j - 1]!
      const up = row[j]!
      const left = next[j - 1]!
      const options: Cell[] = [
        { ...diag, cost: diag.cost + (same ? 0 : 1), sub: diag.sub + (same ? 0 : 1) },
        { ...up, cost: up.cost + 1, del: up.del + 1 },
        { ...left, cost: left.cost + 1, ins: left.ins + 1 },
      ]
      next[j] = options.reduce((best, o) => (o.cost < best.cost ? o : best))
    }
    row = next
  }
  const end = row[b.length]!
  return { ref: a.length, sub: end.sub, del: end.del, ins: end.ins }
}

/** Errors summed over utterances, over reference words summed: the corpus-level WER (not a mean of per-utterance rates). */
export function sumErrors(all: readonly WordErrors[]): WordErrors {
  return all.reduce((s, e) => ({ ref: s.ref + e.ref, sub: s.sub + e.sub, del: s.del + e.del, ins: s.ins + e.ins }), { ref: 0, sub: 0, del: 0, ins: 0 })
}

/** WER in percent; undefined over no reference words. */
export const werPercent = (e: WordErrors) => (e.ref ? (100 * errorsOf(e)) / e.ref : undefined)

/** Whether `spoken` holds `phrase`, both normalised the same way ("$40" and "forty dollars" alike). */
export function holdsPhrase(spoken: string, phrase: string): boolean {
  const s = ` ${normalise(spoken).join(' ')} `
  return s.includes(` ${normalise(phrase).join(' ')} `)
}

/** The share of `terms` found among the words of `heard`. */
export function termsHeard(terms: readonly string[], heard: string): number {
  const words = new Set(normalise(heard))
  return terms.length ? terms.filter((t) => words.has(t)).length / terms.length : 1
}
