// The command line of npm run bench:understanding.
import { CONDITION_IDS } from './conditions.ts'
import type { Split } from './corpus.ts'
import { VOICE_IDS } from './voices.ts'

export interface UnderstandingArgs {
  voices: string[]
  conditions: string[]
  split: Split | 'all'
  /** Utterances per voice x condition cell (default: every one the voice says). */
  limit?: number
  /** Calls at once. */
  concurrency: number
  json?: string
  /** A git ref measured in the same run, in a checkout of its own: every figure before -> after. */
  baseline?: string
  /** Barge-in at the wire instead of understanding. */
  bargeIn: boolean
  /** The share of the calls placed again on an appliance without STT, for the decoding cost. */
  costShare: number
}

export const USAGE =
  'usage: bench:understanding [--voices a,b] [--conditions a,b] [--split tuning|heldout|all] [--limit N] [--concurrency N] [--json out.json] [--baseline <git-ref>] [--barge-in] [--cost-share 0-1]\n' +
  `  voices: ${VOICE_IDS.join(', ')}\n  conditions: ${CONDITION_IDS.join(', ')}`

/** 2 cores: two calls at once leave the decoder room, so saturation does not drop audio and move the WER. */
export const DEFAULT_CONCURRENCY = 2

export function parseArgs(argv: readonly string[]): UnderstandingArgs {
  const args: UnderstandingArgs = { voices: [...VOICE_IDS], conditions: [...CONDITION_IDS], split: 'all', concurrency: DEFAULT_CONCURRENCY, bargeIn: false, costShare: 0.25 }
  const list = (v: string, known: readonly string[], what: string) => {
    const items = v.split(',').filter(Boolean)
    const bad = items.filter((x) => !known.includes(x))
    if (!items.length || bad.length) throw new Error(`unknown ${what}: ${bad.join(', ') || '(none)'}; ${USAGE}`)
    return items
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${a} needs a value; ${USAGE}`)
      return v
    }
    const count = (min: number, max: number) => {
      const n = Number(value())
      if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${a} takes a whole number from ${min} to ${max}; ${USAGE}`)
      return n
    }
    if (a === '--voices') args.voices = list(value(), VOICE_IDS, 'voice')
    else if (a === '--conditions') args.conditions = list(value(), CONDITION_IDS, 'condition')
    else if (a === '--split') {
      const v = value()
      if (v !== 'tuning' && v !== 'heldout' && v !== 'all') throw new Error(`--split is tuning, heldout or all; ${USAGE}`)
      args.split = v
    } else if (a === '--limit') args.limit = count(1, 10_000)
    else if (a === '--concurrency') args.concurrency = count(1, 50)
    else if (a === '--json') args.json = value()
    else if (a === '--baseline') args.baseline = value()
    else if (a === '--barge-in') args.bargeIn = true
    else if (a === '--cost-share') {
      const v = Number(value())
      if (!(v >= 0 && v <= 1)) throw new Error(`--cost-share is a share from 0 to 1; ${USAGE}`)
      args.costShare = v
    } else throw new Error(`unknown argument ${a}; ${USAGE}`)
  }
  return args
}
