// What kind of fact a caller's question asks for, and whether a sentence states one: a time for
// "when", an amount for "how much" (and "how many", "how long"), a yes or no for "can I" and "do I
// need", a place for "where", a number for "what's the number". English only. Pure.

export type AnswerKind = 'when' | 'how_much' | 'yes_no' | 'where' | 'phone' | 'other'

const ASKS: [AnswerKind, RegExp][] = [
  ['phone', /\b(phone number|number (to|i can|do i) call|what number|call (you|them) at|hotline|toll free|tty)\b/],
  ['how_much', /\bhow (much|many|long|often|big|old|far|soon)\b|\b(cost|costs|price|fee|fees|charge|rate|amount|percent|limit|minimum|maximum)\b/],
  ['when', /\bwhen\b|\bwhat (time|day|date|year|month)\b|\b(deadline|hours|open|close|closes|opens|opening|closing|until|by when)\b|\btime\b/],
  ['where', /\bwhere\b|\b(address|location|located|which office|what office)\b/],
  ['yes_no', /^(?:\W*(?:um|uh|hey|hi|so|ok|okay|well|like|yeah|and|but)\b\W*)*(can|could|do|does|did|is|are|am|will|would|should|may|must|have|has)\b|\b(can i|do i (need|have)|am i (allowed|able|eligible)|is it (possible|ok|okay)|is there|are there|allowed to|have to|required)\b/],
]

/** The kind of fact `question` asks for; the first that fits, in the order above. */
export function answerKind(question: string): AnswerKind {
  const q = question.toLowerCase().replace(/['’]/g, '')
  for (const [kind, pattern] of ASKS) if (pattern.test(q)) return kind
  return 'other'
}

const MONTH = 'january|february|march|april|may|june|july|august|september|october|november|december'
const DAY = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekdays|weekend|weekends'
const NUMBER_WORD = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|sixty|ninety|hundred|thousand|half|once|twice'

const STATES: Record<Exclude<AnswerKind, 'other'>, RegExp> = {
  when: new RegExp(`\\b(\\d{1,2}(:\\d\\d)?\\s?(am|pm|a\\.m\\.|p\\.m\\.)|${MONTH}|${DAY}|\\d{4}|\\d+\\s*(day|days|week|weeks|month|months|year|years|hour|hours|minutes)|(${NUMBER_WORD})\\s+(day|days|week|weeks|month|months|year|years|hours)|within|before|after|until|deadline|anytime|any time|each year|every year|annually|immediately|today|tomorrow)\\b`, 'i'),
  how_much: new RegExp(`\\$\\s?\\d|\\b\\d[\\d,.]*\\s*(%|percent|dollars|cents|characters|digits|days|hours|months|years|times)?\\b|\\b(${NUMBER_WORD})\\b|\\b(free|no cost|no charge|at no|fee|fees|costs?|charged?|copays?|up to|at least|at most|no more than|maximum|minimum)\\b`, 'i'),
  yes_no: /\b(yes|no|not|n't|cannot|can|may|must|required|require|requires|need to|needs to|have to|has to|only|never|always|allowed|eligible|able to|don't|doesn't)\b/i,
  where: /\b(address|located|office|offices|online|website|web site|street|st\.|road|avenue|ave\.|suite|building|floor|room|center|centre|mail|send|visit|go to|in person|at (the|your|a|any|our|an)|near)\b|\b\d+\s+[A-Z][a-z]+\s+(Street|St|Road|Rd|Avenue|Ave|Boulevard|Blvd)\b/i,
  phone: /\b\d{3}[-. )]\s?\d{3}[-. ]\d{4}\b|\b(tty|711|call us|call)\b/i,
}

/** A price, a clock time or a phone number: the fact itself, not just words around one. */
const EXACT: Partial<Record<AnswerKind, RegExp>> = {
  how_much: /\$\s?\d|\b\d[\d,.]*\s*(%|percent|dollars|cents)/i,
  when: /\b\d{1,2}(:\d\d)?\s?(am|pm|a\.m\.|p\.m\.)|\b(${MONTH})\s+\d{1,2}\b/i,
  phone: /\b\d{3}[-. )]\s?\d{3}[-. ]\d{4}\b/,
}

/** How plainly `sentence` states a fact of the kind asked (a time, an amount, a yes or no, a place, a number to call): 0 not, 1 in words around one, 2 the fact itself. */
export function statesKind(sentence: string, kind: AnswerKind): number {
  if (kind === 'other' || !STATES[kind].test(sentence)) return 0
  return EXACT[kind]?.test(sentence) ? 2 : 1
}
