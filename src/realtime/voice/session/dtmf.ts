/** Digits typed without '#' count as one entry after this pause. */
export const DTMF_PAUSE_MS = 1500

/** Collects a caller's keys into entries: an entry ends at '#' or after a pause. */
export class DtmfEntry {
  private digits = ''
  private startAt = 0
  private lastAt = 0

  /** A key was pressed; returns the entry when it ends with this key. */
  press(key: string, now: number): { digits: string; startAt: number; lastAt: number } | undefined {
    if (!this.digits) this.startAt = now
    this.lastAt = now
    // '#' ends an entry; pressed alone it is the entry
    if (key !== '#') {
      this.digits += key
      return undefined
    }
    if (!this.digits) this.digits = '#'
    return this.take()
  }

  /** The entry when the pause after its last key has passed. */
  due(now: number): { digits: string; startAt: number; lastAt: number } | undefined {
    return this.digits && now - this.lastAt >= DTMF_PAUSE_MS ? this.take() : undefined
  }

  /** Whatever was typed, complete or not (at the end of the call). */
  take(): { digits: string; startAt: number; lastAt: number } | undefined {
    const digits = this.digits
    this.digits = ''
    return digits ? { digits, startAt: this.startAt, lastAt: this.lastAt } : undefined
  }
}

/**
 * Keys pressed while a spoken turn is still being decided wait for it: the caller said the words
 * first, so the brain hears them first. Bounded: a key waits at most `maxWaitMs` (a noise the
 * VAD takes for endless speech must not swallow keys).
 */
export class KeysAfterSpeech {
  private held: { key: string; at: number }[] = []

  constructor(private readonly maxWaitMs: number) {}

  get holding(): boolean {
    return this.held.length > 0
  }

  /** Holds the key when a spoken turn is pending; returns false when it may be handled now. */
  hold(key: string, at: number, speechPending: boolean): boolean {
    if (!speechPending && this.held.length === 0) return false
    this.held.push({ key, at })
    return true
  }

  /** The keys to handle now, in the order pressed: all of them once the turn is decided or they waited long enough. */
  release(speechPending: boolean, now: number): { key: string; at: number }[] {
    if (this.held.length === 0) return []
    if (speechPending && now - this.held[0]!.at < this.maxWaitMs) return []
    return this.held.splice(0)
  }
}
