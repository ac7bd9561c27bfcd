/**
 * A sound on the caller's line before the VAD model calls it speech, from the frames' level
 * against the line's own floor. Silero calls a soft start of human speech on phone audio (8 kHz,
 * or upsampled to 16 kHz) speech only once the voice is strong, often more than half a second after
 * the caller is heard; this holds the agent from the first loud frames instead, and lets it go
 * when the sound proves not to be speech: it ended first, it is steady (a hum, traffic, a noise
 * bed), or it went on too long with no word from the VAD. Pure: time is the audio clock.
 */
export interface OnsetParams {
  /** A frame at least this loud (dBFS)... */
  minDbfs: number
  /** ...and this far above the quietest frame of the last FLOOR_MS is loud. */
  riseDb: number
  /** Loud frames in a row this long hold the agent. */
  holdMs: number
  /** Frames below the gate this long end the sound: the agent plays on. */
  quietMs: number
  /** A sound whose level stayed within `steadyRangeDb` for this long is a noise, not a voice (durations from its first loud frame). */
  steadyMs: number
  steadyRangeDb: number
  /** Held this long with no speech from the VAD: let go, and hold again only after the sound has ended. */
  maxHoldMs: number
}

export const DEFAULT_ONSET: OnsetParams = { minDbfs: -40, riseDb: 10, holdMs: 40, quietMs: 240, steadyMs: 300, steadyRangeDb: 6, maxHoldMs: 900 }

/** The floor is the quietest frame this far back. */
const FLOOR_MS = 1000

export type OnsetEvent = 'onset' | 'quiet'

export function validateOnset(p: OnsetParams): OnsetParams {
  if (!(p.minDbfs <= 0)) throw new RangeError('the onset level must be at most 0 dBFS')
  for (const k of ['riseDb', 'holdMs', 'quietMs', 'steadyMs', 'steadyRangeDb', 'maxHoldMs'] as const) {
    if (!(p[k] >= 0)) throw new RangeError(`onset ${k} must be non-negative`)
  }
  return p
}

export class LineOnset {
  /** Recent frame levels (dBFS) and their lengths, FLOOR_MS of them. */
  private readonly levels: { db: number; ms: number }[] = []
  private levelsMs = 0
  private loudMs = 0
  private held = false
  private heldMs = 0
  private quietRunMs = 0
  /** Levels since the hold began, the last `steadyMs` of them. */
  private readonly recent: { db: number; ms: number }[] = []
  /** The level of a steady noise found on the line, while it lasts: the gate sits above it. */
  private noiseDb: number | undefined
  /** Frames well below that noise in a row: it has gone once they last `quietMs`. */
  private belowNoiseMs = 0
  /** Let go after maxHoldMs: no new hold until the sound has ended. */
  private spent = false

  constructor(private readonly p: OnsetParams = DEFAULT_ONSET) {
    validateOnset(p)
  }

  get holding(): boolean {
    return this.held
  }

  /** One frame's level (dBFS) and length; says when a hold begins ('onset') or ends ('quiet'). */
  push(db: number, ms: number): OnsetEvent | undefined {
    const floor = this.levels.reduce((m, l) => Math.min(m, l.db), Number.POSITIVE_INFINITY)
    if (this.noiseDb !== undefined) {
      this.belowNoiseMs = db < this.noiseDb - this.p.riseDb ? this.belowNoiseMs + ms : 0
      if (this.belowNoiseMs >= this.p.quietMs) this.noiseDb = undefined
    }
    const gate = Math.max(this.p.minDbfs, floor + this.p.riseDb, (this.noiseDb ?? Number.NEGATIVE_INFINITY) + this.p.steadyRangeDb)
    const loud = db >= gate
    this.levels.push({ db, ms })
    this.levelsMs += ms
    while (this.levelsMs - this.levels[0]!.ms >= FLOOR_MS) this.levelsMs -= this.levels.shift()!.ms
    this.quietRunMs = loud ? 0 : this.quietRunMs + ms
    if (!this.held) {
      if (this.spent) {
        if (this.quietRunMs >= this.p.quietMs) this.spent = false
        return undefined
      }
      this.loudMs = loud ? this.loudMs + ms : 0
      if (this.loudMs < this.p.holdMs) return undefined
      this.held = true
      this.heldMs = this.loudMs
      this.recent.splice(0, this.recent.length, { db, ms })
      return 'onset'
    }
    this.heldMs += ms
    this.recent.push({ db, ms })
    let recentMs = this.recent.reduce((n, r) => n + r.ms, 0)
    while (recentMs - this.recent[0]!.ms >= this.p.steadyMs) recentMs -= this.recent.shift()!.ms
    if (this.quietRunMs >= this.p.quietMs) return this.release()
    if (this.heldMs >= this.p.steadyMs) {
      const dbs = this.recent.map((r) => r.db)
      const top = Math.max(...dbs)
      if (top - Math.min(...dbs) < this.p.steadyRangeDb) {
        this.noiseDb = top
        this.belowNoiseMs = 0
        return this.release()
      }
    }
    if (this.heldMs >= this.p.maxHoldMs) {
      this.spent = true
      return this.release()
    }
    return undefined
  }

  /** The VAD has the caller's speech now (or it ended): the next hold needs a new rise. */
  reset(): void {
    this.held = false
    this.loudMs = 0
    this.heldMs = 0
    this.spent = false
  }

  private release(): OnsetEvent {
    this.held = false
    this.loudMs = 0
    this.heldMs = 0
    return 'quiet'
  }
}
