// How a phone hears the agent, from nothing but packet arrival times and levels: voiced frames,
// the onset of each agent utterance, and when the agent fell silent. The phones use it live to
// decide when the caller speaks; the analysis uses the same rules on the whole log afterwards.
import { VOICED_DBFS } from './audio.ts'

/**
 * Silence before voiced audio that makes it a new utterance. flite pauses up to ~360 ms between
 * sentences and at commas (measured on kal16, -40 dBFS frames); an answer follows at least the
 * caller's own turn of silence.
 */
export const ONSET_SILENCE_MS = 500
/** The agent "fell silent" at the last voiced frame before at least this much silence. */
export const STOP_SILENCE_MS = 200
const FRAME_MS = 20

/** Silence between two voiced frames that arrived at `a` and `b`. */
const silenceBetween = (a: number, b: number) => b - a - FRAME_MS

/** What one phone has heard of the agent so far; fed one received packet at a time. */
export class AgentEar {
  /** Arrival times of voiced agent frames, in order. */
  readonly voiced: number[] = []
  /** Arrival times of the first voiced frame of each agent utterance. */
  readonly onsets: number[] = []

  hear(atMs: number, dbfs: number): void {
    if (dbfs <= VOICED_DBFS) return
    const last = this.voiced.at(-1)
    if (last === undefined || silenceBetween(last, atMs) >= ONSET_SILENCE_MS) this.onsets.push(atMs)
    this.voiced.push(atMs)
  }

  get lastVoicedAt(): number | undefined {
    return this.voiced.at(-1)
  }

  /** The first voiced frame that arrived after `t`. */
  firstVoicedAfter(t: number): number | undefined {
    let lo = 0
    let hi = this.voiced.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.voiced[mid]! > t) hi = mid
      else lo = mid + 1
    }
    return this.voiced[lo]
  }

  /** The first agent utterance that began after `t`. */
  onsetAfter(t: number): number | undefined {
    return this.onsets.find((o) => o > t)
  }
}

export function earOf(rx: { at: number[]; db: number[] }): AgentEar {
  const ear = new AgentEar()
  for (let i = 0; i < rx.at.length; i++) ear.hear(rx.at[i]!, rx.db[i]!)
  return ear
}

/**
 * When the agent, talking as the caller cut in at `from`, fell silent: its last voiced frame
 * before >= STOP_SILENCE_MS of silence that lasts past the caller's last voiced frame `callerEnd`
 * (the agent does not answer while the caller talks, so audio resuming earlier is the same
 * utterance going on) or for ONSET_SILENCE_MS. Undefined if it never did.
 */
export function fellSilentAt(voiced: readonly number[], from: number, callerEnd: number): number | undefined {
  for (let i = 0; i < voiced.length; i++) {
    const v = voiced[i]!
    const next = voiced[i + 1] ?? Number.POSITIVE_INFINITY
    if (next <= from) continue
    const quiet = silenceBetween(v, next)
    if (quiet >= STOP_SILENCE_MS && (next > callerEnd || quiet >= ONSET_SILENCE_MS)) return v
  }
  return undefined
}

/** The longest agent silence between `from` and `to` (0 when it talked throughout). */
export function longestSilence(voiced: readonly number[], from: number, to: number): number {
  const inside = voiced.filter((v) => v >= from && v <= to)
  const points = [from, ...inside, to]
  let longest = 0
  for (let i = 1; i < points.length; i++) longest = Math.max(longest, points[i]! - points[i - 1]! - (i > 1 ? FRAME_MS : 0))
  return longest
}
