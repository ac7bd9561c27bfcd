// Refuses, at save time, the regular expressions a backtracking engine can take exponential or
// high-polynomial time on, and bounds the text they are run over. JavaScript cannot interrupt a
// running match, so an operator's pattern over caller or agent speech must be safe by shape:
//  - no repeat of a group that holds a variable repeat or alternatives ((a+)+, (a|aa)*: exponential);
//    alternatives of plain words that are no prefix of one another ((yes|no)+) are allowed;
//  - at most MAX_OPEN_REPEATS open-ended repeats (*, +, {n,}): .*.*.*x is O(n^4) unanchored;
//  - no backreferences (matching with them is NP-hard).
// Measured on Bun: the worst allowed shape (.*.*x) over MAX_REGEX_SUBJECT chars of "a" takes ~130 ms.

export const MAX_REGEX_SUBJECT = 500
export const MAX_OPEN_REPEATS = 2
const BIG = 100

interface Frame {
  start: number
  variable: boolean
  alternatives: boolean
}

/** Why the pattern is refused, or undefined when it is valid and safe to run. */
export function regexProblem(pattern: string, flags = ''): string | undefined {
  try {
    new RegExp(pattern, flags)
  } catch (err) {
    return `is not a valid regular expression: ${(err as Error).message}`
  }
  const stack: Frame[] = [{ start: 0, variable: false, alternatives: false }]
  let open = 0
  let i = 0
  while (i < pattern.length) {
    const c = pattern[i]!
    // variable: can match texts of several lengths; alternatives: its alternatives can match alike
    let atom: { variable: boolean; alternatives: boolean } | undefined
    if (c === '\\') {
      const next = pattern[i + 1] ?? ''
      if (/[1-9]/.test(next) || (next === 'k' && pattern[i + 2] === '<')) return 'uses a backreference, which can take exponential time; remove it'
      i += next === 'u' && pattern[i + 2] === '{' ? pattern.indexOf('}', i) + 1 - i : 2
      atom = { variable: false, alternatives: false }
    } else if (c === '[') {
      i = classEnd(pattern, i)
      atom = { variable: false, alternatives: false }
    } else if (c === '(') {
      const m = /^\((\?(:|=|!|<=|<!|<[A-Za-z_$][\w$]*>))?/.exec(pattern.slice(i))!
      i += m[0].length
      stack.push({ start: i, variable: false, alternatives: false })
      continue
    } else if (c === ')') {
      const f = stack.pop()!
      const ambiguous = f.alternatives && !plainPrefixFree(pattern.slice(f.start, i), flags)
      atom = { variable: f.variable || ambiguous, alternatives: ambiguous }
      i += 1
    } else if (c === '|') {
      stack[stack.length - 1]!.alternatives = true
      i += 1
      continue
    } else {
      i += 1
      if (c === '^' || c === '$') continue
      atom = { variable: false, alternatives: false }
    }
    const q = quantifierAt(pattern, i)
    const top = stack[stack.length - 1]!
    top.variable ||= atom.variable
    if (!q) continue
    i = q.end
    if (q.max === undefined || q.max > BIG) open += 1
    if (q.min !== q.max) top.variable = true
    if (q.max === undefined || q.max > 1) {
      if (atom.alternatives) return 'repeats a group of alternatives that can match the same text (like (a|aa)+), which can take exponential time; use a character class or plain words'
      if (atom.variable) return 'repeats a group that itself repeats (like (a+)+), which can take exponential time; simplify it'
    }
  }
  if (open > MAX_OPEN_REPEATS) return `has ${open} open-ended repeats (*, +, {n,}); at most ${MAX_OPEN_REPEATS}, since each one multiplies the matching time`
  return undefined
}

/** Tests a pattern already checked by regexProblem, over at most MAX_REGEX_SUBJECT chars of text. */
export function boundedTest(re: RegExp, text: string): boolean {
  return re.test(text.slice(0, MAX_REGEX_SUBJECT))
}

function classEnd(p: string, from: number): number {
  let i = from + 1
  if (p[i] === '^') i += 1
  if (p[i] === ']') i += 1
  while (i < p.length && p[i] !== ']') i += p[i] === '\\' ? 2 : 1
  return i + 1
}

function quantifierAt(p: string, i: number): { min: number; max: number | undefined; end: number } | undefined {
  const c = p[i]
  let q: { min: number; max: number | undefined; end: number } | undefined
  if (c === '*') q = { min: 0, max: undefined, end: i + 1 }
  else if (c === '+') q = { min: 1, max: undefined, end: i + 1 }
  else if (c === '?') q = { min: 0, max: 1, end: i + 1 }
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i))
    if (!m) return undefined
    const min = Number(m[1])
    q = { min, max: m[2] === undefined ? min : m[3] ? Number(m[3]) : undefined, end: i + m[0].length }
  }
  if (q && p[q.end] === '?') q.end += 1
  return q
}

/** Alternatives that are plain words, none a prefix of another: at most one can match at a place. */
function plainPrefixFree(body: string, flags: string): boolean {
  if (/[\\()[\]{}*+?.^$]/.test(body)) return false
  const words = body.split('|').map((w) => (flags.includes('i') ? w.toLowerCase() : w))
  return words.every((w, a) => w !== '' && words.every((v, b) => a === b || !v.startsWith(w)))
}
