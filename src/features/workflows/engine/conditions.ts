import type { Condition } from '../workflow.model.ts'
import { normalizeText } from './extract.ts'
import type { EngineInput } from './contracts.ts'
import { lookup, type Variables } from '../../../platform/template.ts'
import { boundedTest, regexProblem } from '../../../platform/regex/index.ts'

const MAX_MATCH_CHARS = 2000

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A pattern saved before the slow shapes were refused matches nothing rather than stall the loop. */
function safeRegexMatches(pattern: string, flags: string, text: string): boolean {
  return regexProblem(pattern, flags) === undefined && boundedTest(new RegExp(pattern, flags), text)
}

/** A word or phrase occurs in the text as whole words, ignoring case and punctuation. */
export function keywordMatches(text: string, keywords: string[]): boolean {
  const hay = ` ${normalizeText(text).replace(/[.,]/g, ' ').replace(/\s+/g, ' ')} `
  return keywords.some((k) => {
    const needle = normalizeText(k).replace(/[.,]/g, ' ').replace(/\s+/g, ' ').trim()
    return needle !== '' && new RegExp(`(^|\\s)${escapeRegex(needle)}(\\s|$)`).test(hay)
  })
}

const asNumber = (v: unknown): number | undefined => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v)
  return undefined
}
const asText = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)).trim().toLowerCase()

/** Numbers compare as numbers when both sides are numeric; otherwise strings, case-insensitively. */
export function compare(actual: unknown, op: Extract<Condition, { type: 'variable' }>['op'], expected: unknown): boolean {
  const isSet = actual !== undefined && actual !== null && actual !== ''
  if (op === 'set') return isSet
  if (op === 'unset') return !isSet
  if (!isSet) return op === 'neq'
  const a = asNumber(actual)
  const b = asNumber(expected)
  const numeric = a !== undefined && b !== undefined
  switch (op) {
    case 'eq':
      return numeric ? a === b : asText(actual) === asText(expected)
    case 'neq':
      return numeric ? a !== b : asText(actual) !== asText(expected)
    case 'contains':
      return asText(actual).includes(asText(expected))
    case 'gt':
      return numeric ? a > b : asText(actual) > asText(expected)
    case 'gte':
      return numeric ? a >= b : asText(actual) >= asText(expected)
    case 'lt':
      return numeric ? a < b : asText(actual) < asText(expected)
    case 'lte':
      return numeric ? a <= b : asText(actual) <= asText(expected)
  }
}

/**
 * Conditions decided without a language model. Intent conditions are decided by the engine
 * (one LLM call per node and input); `else` is taken only after every other edge failed.
 */
export function matchesLocally(c: Condition, input: EngineInput | null, variables: Variables): boolean {
  switch (c.type) {
    case 'keywords':
      return input?.kind === 'speech' && keywordMatches(input.text.slice(0, MAX_MATCH_CHARS), c.keywords)
    case 'regex':
      return input?.kind === 'speech' && safeRegexMatches(c.pattern, c.flags ?? 'i', input.text)
    case 'dtmf':
      return input?.kind === 'dtmf' && input.digits === c.digits
    case 'variable':
      return compare(lookup(variables, c.variable), c.op, c.value)
    case 'intent':
    case 'else':
    case 'no_match':
      return false
  }
}
