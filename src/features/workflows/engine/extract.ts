/**
 * Value extraction for collect nodes: turns what a caller said (speech-to-text output) or
 * pressed (DTMF) into a value. Pure; `today` is an argument for relative dates.
 */
import { MAX_REGEX_SUBJECT, regexProblem } from '../../../platform/regex/index.ts'

// Homophones of digits ("to", "for", "oh") are left out: they occur in ordinary sentences.
const DIGIT_WORDS: Record<string, string> = {
  zero: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
}

export function normalizeText(text: string): string {
  return text.toLowerCase().normalize('NFKC').replace(/[^\p{L}\p{N}@.+'#*-]+/gu, ' ').replace(/\s+/g, ' ').trim()
}

const words = (text: string) => normalizeText(text).replace(/[.,!?]+(\s|$)/g, ' ').split(' ').filter(Boolean)

/** Digits typed or spoken: "4 1 2", "four one two", "41-2". Words other than digits are ignored. */
export function extractDigits(text: string, min = 1, max = 64): string | undefined {
  let out = ''
  let repeat = 1
  for (const w of words(text)) {
    let digits: string | undefined
    if (/^[0-9*#][0-9*#-]*$/.test(w)) digits = w.replace(/[^0-9]/g, '')
    else digits = DIGIT_WORDS[w]
    if (w === 'double' || w === 'triple') {
      repeat = w === 'double' ? 2 : 3
      continue
    }
    if (digits === undefined) continue
    out += (digits[0] ?? '').repeat(repeat) + digits.slice(1)
    repeat = 1
  }
  if (out.length < min || out.length > max) return undefined
  return out
}

const YES = new Set(['yes', 'yeah', 'yep', 'yup', 'sure', 'correct', 'right', 'affirmative', 'absolutely', 'definitely', 'ok', 'okay', 'certainly', 'indeed', 'true'])
const NO = new Set(['no', 'nope', 'nah', 'negative', 'not', "don't", 'dont', 'never', 'wrong', 'incorrect', 'false'])

/** "yes" or "no"; DTMF 1 is yes and 2 is no. Undefined when the answer holds both or neither. */
export function extractYesNo(text: string): 'yes' | 'no' | undefined {
  const ws = words(text)
  if (ws.length === 1 && ws[0] === '1') return 'yes'
  if (ws.length === 1 && ws[0] === '2') return 'no'
  const joined = ` ${ws.join(' ')} `
  const yes = ws.some((w) => YES.has(w)) || joined.includes(' of course ')
  const no = ws.some((w) => NO.has(w))
  if (yes === no) return undefined
  return yes ? 'yes' : 'no'
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']
const ORDINALS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
  eleventh: 11, twelfth: 12, thirteenth: 13, fourteenth: 14, fifteenth: 15, sixteenth: 16, seventeenth: 17,
  eighteenth: 18, nineteenth: 19, twentieth: 20, 'twenty-first': 21, 'twenty-second': 22, 'twenty-third': 23,
  thirtieth: 30, 'thirty-first': 31,
}

const iso = (y: number, m: number, d: number) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`

function validDate(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31) return undefined
  const dt = new Date(Date.UTC(y, m - 1, d))
  return dt.getUTCMonth() === m - 1 ? iso(y, m, d) : undefined
}

function monthIndex(w: string): number {
  return MONTHS.findIndex((m) => w === m || (w.length >= 3 && m.startsWith(w)))
}

function dayNumber(w: string): number | undefined {
  const m = /^(\d{1,2})(st|nd|rd|th)?$/.exec(w)
  if (m) return Number(m[1])
  return ORDINALS[w]
}

/**
 * A calendar date as YYYY-MM-DD: ISO dates, "today"/"tomorrow", weekday names (the next such
 * day), "March 5th [2027]", "the 5th of March". Without a year the next such date is meant.
 * Numeric forms like 03/05 are refused: day and month order differ between countries.
 */
export function extractDate(text: string, today: string): string | undefined {
  const isoMatch = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(text)
  if (isoMatch) return validDate(Number(isoMatch[1]), Number(isoMatch[2]), Number(isoMatch[3]))
  const [ty, tm, td] = today.split('-').map(Number) as [number, number, number]
  const base = Date.UTC(ty, tm - 1, td)
  const plusDays = (n: number) => new Date(base + n * 86_400_000).toISOString().slice(0, 10)
  const ws = words(text).map((w) => w.replace(/[.,]$/, ''))
  if (ws.includes('today')) return plusDays(0)
  if (ws.includes('tomorrow')) return ws.includes('after') ? plusDays(2) : plusDays(1)
  const monthAt = ws.findIndex((w) => monthIndex(w) >= 0)
  const year = ws.find((w) => /^\d{4}$/.test(w))
  if (monthAt >= 0) {
    // The day is the day-like word nearest the month name: "on the 5th of May", "May 5".
    let day: number | undefined
    let best = Infinity
    ws.forEach((w, i) => {
      const d = dayNumber(w)
      if (d !== undefined && Math.abs(i - monthAt) < best) {
        best = Math.abs(i - monthAt)
        day = d
      }
    })
    if (day === undefined) return undefined
    const month = monthIndex(ws[monthAt] as string) + 1
    if (year !== undefined) return validDate(Number(year), month, day)
    const thisYear = validDate(ty, month, day)
    if (thisYear && thisYear >= today) return thisYear
    return validDate(ty + 1, month, day)
  }
  const wd = ws.map((w) => WEEKDAYS.indexOf(w)).find((i) => i >= 0)
  if (wd !== undefined) {
    const now = new Date(base).getUTCDay()
    const ahead = (wd - now + 7) % 7 || 7
    return plusDays(ws.includes('next') && ahead < 7 ? ahead + 7 : ahead)
  }
  return undefined
}

const EMAIL = /[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/i

/** An email address, typed or spoken ("jane dot doe at example dot com"). Lower-cased. */
export function extractEmail(text: string): string | undefined {
  const direct = EMAIL.exec(text)
  if (direct) return direct[0].toLowerCase()
  const spoken = ` ${text.toLowerCase()} `
    .replace(/\s+at\s+/g, '@')
    .replace(/\s+dot\s+/g, '.')
    .replace(/\s+(underscore)\s+/g, '_')
    .replace(/\s+(dash|hyphen)\s+/g, '-')
  const compact = spoken.replace(/\s*([@._-])\s*/g, '$1')
  const m = EMAIL.exec(compact)
  return m ? m[0].toLowerCase() : undefined
}

export function extractRegex(text: string, pattern: string): string | undefined {
  if (regexProblem(pattern, 'i')) return undefined
  const m = new RegExp(pattern, 'i').exec(text.slice(0, MAX_REGEX_SUBJECT))
  if (!m) return undefined
  return m[1] ?? m[0]
}

export function extractText(text: string): string | undefined {
  const t = text.trim()
  return t === '' ? undefined : t
}
