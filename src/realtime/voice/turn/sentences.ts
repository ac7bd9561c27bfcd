/**
 * Cuts streaming LLM text into sentences for TTS, so the first sentence can be spoken while the
 * model is still writing the rest. Pure and incremental: push deltas, get whole sentences.
 */
export interface SplitterOptions {
  /** A sentence shorter than this is held and joined to the next one ("Yes." "Sure."). */
  minChars: number
  /** Past this length a clause is cut at the last comma, semicolon or space. */
  maxChars: number
  /**
   * While the first sentence of a reply is still being written, a clause of at least this many
   * characters ending in a comma, semicolon or colon goes to TTS on its own, so the caller hears
   * it sooner; short openers ("Sure,", "Of course,") stay with their sentence. 0 turns it off.
   */
  firstClauseMinChars?: number
}

export const DEFAULT_SPLITTER: SplitterOptions = { minChars: 8, maxChars: 220, firstClauseMinChars: 20 }

const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'vs', 'etc', 'e.g', 'i.e', 'approx', 'no', 'ave', 'inc', 'ltd', 'co', 'jan', 'feb',
  'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'a.m', 'p.m', 'u.s',
])

export class SentenceSplitter {
  private buffer = ''
  private emitted = false

  constructor(private readonly opts: SplitterOptions = DEFAULT_SPLITTER) {
    if (!(opts.minChars >= 0 && opts.maxChars > opts.minChars)) throw new RangeError('splitter needs 0 <= minChars < maxChars')
  }

  push(delta: string): string[] {
    this.buffer += delta
    const out: string[] = []
    for (;;) {
      const cut = this.findCut()
      if (cut === undefined) break
      const sentence = this.buffer.slice(0, cut).trim()
      this.buffer = this.buffer.slice(cut)
      if (sentence) out.push(sentence)
      this.emitted ||= sentence.length > 0
    }
    return out
  }

  /** The model finished: whatever is left is the last sentence. */
  flush(): string[] {
    const rest = this.buffer.trim()
    this.buffer = ''
    this.emitted = false
    return rest ? [rest] : []
  }

  private findCut(): number | undefined {
    const b = this.buffer
    const re = /([.!?…]+["')\]]*|\n+)(\s)/g
    let m: RegExpExecArray | null
    while ((m = re.exec(b))) {
      const end = m.index + m[1]!.length
      const candidate = b.slice(0, end).trim()
      if (m[1]!.startsWith('.') && m[1]!.length === 1 && isAbbreviation(candidate)) continue
      if (candidate.length < this.opts.minChars && !m[1]!.startsWith('\n')) continue
      return end + m[2]!.length
    }
    const clauseMin = this.opts.firstClauseMinChars ?? 0
    if (!this.emitted && clauseMin > 0) {
      const clause = /[,;:](\s)/g
      while ((m = clause.exec(b))) {
        if (m.index + 1 >= clauseMin && b.slice(0, m.index + 1).trim().length >= clauseMin) return m.index + 2
      }
    }
    if (b.length > this.opts.maxChars) {
      const window = b.slice(0, this.opts.maxChars)
      const clause = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; '), window.lastIndexOf(': '))
      if (clause > this.opts.minChars) return clause + 2
      const space = window.lastIndexOf(' ')
      return space > 0 ? space + 1 : this.opts.maxChars
    }
    return undefined
  }
}

function isAbbreviation(textUpToDot: string): boolean {
  const word = /([A-Za-z.]+)\.$/.exec(textUpToDot)?.[1]?.toLowerCase()
  if (!word) return false
  // single capital letters are initials ("J. Smith")
  return ABBREVIATIONS.has(word) || /^[a-z]$/.test(word)
}

/** Splits a whole text at once (welcome messages, fallback lines). */
export function splitSentences(text: string, opts: SplitterOptions = DEFAULT_SPLITTER): string[] {
  // the whole text is known: nothing to gain from cutting the first sentence early
  const s = new SentenceSplitter({ ...opts, firstClauseMinChars: 0 })
  return [...s.push(text), ...s.flush()]
}
