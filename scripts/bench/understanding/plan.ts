// Which calls a run places: the grid of voice x condition, each cell the utterances of the
// chosen split that the voice says, or `limit` of them chosen evenly across categories (the same
// ones on every run, different ones in different cells, so a sampled run still spreads over the
// corpus). Backchannels are for barge-in only. Pure.
import { HUMAN_CONDITIONS } from './conditions.ts'
import type { Split, Utterance } from './corpus.ts'
import { hash32, HUMAN_VOICE, voiceSays } from './voices.ts'

export interface Trial {
  utterance: Utterance
  voice: string
  condition: string
}

export interface PlanOptions {
  voices: readonly string[]
  conditions: readonly string[]
  split: Split | 'all'
  /** At most this many utterances per voice x condition cell. */
  limit?: number
}

/** SIPp's recording as an utterance: its words are not known (human.ts), so it is scored for what it shows, not WER. */
export function humanUtterance(transcript: string | null): Utterance {
  return { id: HUMAN_VOICE, text: transcript ?? '', category: 'name_street', agent: 'capture', split: 'heldout', expect: { node: 'noted', terms: [] } }
}

/** `limit` of `pool`, taking categories in turn, each in an order fixed by `salt`. */
function sample(pool: readonly Utterance[], limit: number | undefined, salt: string): Utterance[] {
  if (limit === undefined || limit >= pool.length) return [...pool]
  const byCategory = new Map<string, Utterance[]>()
  for (const u of pool) byCategory.set(u.category, [...(byCategory.get(u.category) ?? []), u])
  const queues = [...byCategory.values()].map((us) => us.sort((a, b) => hash32(`${salt}|${a.id}`) - hash32(`${salt}|${b.id}`)))
  queues.sort((a, b) => hash32(`${salt}|${a[0]!.category}`) - hash32(`${salt}|${b[0]!.category}`))
  const out: Utterance[] = []
  for (let round = 0; out.length < limit; round++) for (const q of queues) if (q[round] && out.length < limit) out.push(q[round]!)
  return out
}

export function planTrials(corpus: readonly Utterance[], o: PlanOptions, human?: Utterance): Trial[] {
  const cells: Trial[][] = []
  for (const voice of o.voices) {
    for (const condition of o.conditions) {
      if (voice === HUMAN_VOICE) {
        if (human && HUMAN_CONDITIONS.includes(condition)) cells.push([{ utterance: human, voice, condition }])
        continue
      }
      const pool = corpus.filter((u) => u.category !== 'backchannel' && (o.split === 'all' || u.split === o.split) && voiceSays(voice, u.id))
      cells.push(sample(pool, o.limit, `${voice}|${condition}`).map((utterance) => ({ utterance, voice, condition })))
    }
  }
  // cells interleaved, so calls placed side by side differ in voice and condition
  const out: Trial[] = []
  for (let i = 0; cells.some((c) => c[i]); i++) for (const c of cells) if (c[i]) out.push(c[i]!)
  return out
}
