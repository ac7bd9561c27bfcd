/**
 * How much silence ends a caller's turn. An agent picks a preset or a base in ms; the words
 * heard so far then shorten it (a complete answer) or lengthen it (a trailing "um", "and", "so").
 * Pure.
 */
import { normalizeWords } from './barge-in.ts'

/** `fast`, `normal`, `patient`, or the base silence in ms (MIN_ENDPOINTING_MS-MAX_ENDPOINTING_MS). */
export type EndpointingMode = 'fast' | 'normal' | 'patient' | number

export const ENDPOINTING_PRESETS = ['fast', 'normal', 'patient'] as const
export const MIN_ENDPOINTING_MS = 100
export const MAX_ENDPOINTING_MS = 5000

export interface SilenceTargets {
  /** No words yet, or words the brain says do not answer it. */
  unknownMs: number
  /** Words that form a complete answer. */
  completeMs: number
  /** Words that trail off into a hesitation or a connective. */
  hesitantMs: number
}

const PRESETS: Record<(typeof ENDPOINTING_PRESETS)[number], SilenceTargets> = {
  fast: { unknownMs: 350, completeMs: 200, hesitantMs: 700 },
  normal: { unknownMs: 500, completeMs: 300, hesitantMs: 1000 },
  patient: { unknownMs: 800, completeMs: 550, hesitantMs: 1600 },
}

export function silenceTargets(mode: EndpointingMode = 'normal'): SilenceTargets {
  if (typeof mode === 'string') return PRESETS[mode]
  const base = Math.min(MAX_ENDPOINTING_MS, Math.max(MIN_ENDPOINTING_MS, Math.round(mode)))
  return { unknownMs: base, completeMs: Math.round(base * 0.6), hesitantMs: base * 2 }
}

export function isEndpointingMode(v: unknown): v is EndpointingMode {
  if (typeof v === 'string') return (ENDPOINTING_PRESETS as readonly string[]).includes(v)
  return typeof v === 'number' && Number.isInteger(v) && v >= MIN_ENDPOINTING_MS && v <= MAX_ENDPOINTING_MS
}

/**
 * Words after which a speaker usually goes on: fillers and connectives. Not articles or
 * prepositions: an offline recogniser often ends a misheard line with "the" or "of".
 */
const TRAILING = new Set('um umm uh uhh er erm ah eh so and but or because cause like well'.split(' '))

export type Completeness = 'complete' | 'hesitant' | 'unknown'

/**
 * `answers`: the brain's view (a workflow node that listens for these words), when it has one.
 * A trailing hesitation wins over it: "yes, and" is not finished.
 */
export function judgeWords(text: string, answers?: boolean): Completeness {
  const words = normalizeWords(text).split(' ').filter(Boolean)
  if (words.length === 0) return 'unknown'
  if (TRAILING.has(words[words.length - 1]!)) return 'hesitant'
  if (answers === false) return 'unknown'
  return 'complete'
}
