import { DtmfEntry, KeysAfterSpeech } from './dtmf.ts'

type Entry = { digits: string; startAt: number; lastAt: number }

/**
 * The caller's keys: each goes to the brain as pressed (after a spoken turn still being decided),
 * and they are collected into entries that end at '#' or a pause.
 */
export class Keypad {
  private readonly entry = new DtmfEntry()
  private readonly held: KeysAfterSpeech

  constructor(
    maxWaitMs: number,
    private readonly on: {
      /** A spoken turn is under way: keys wait for it. */
      speechPending(): boolean
      key(key: string, atMs: number): void
      entry(entry: Entry, nowMs: number): void
    },
  ) {
    this.held = new KeysAfterSpeech(maxWaitMs)
  }

  press(key: string, nowMs: number): void {
    if (!this.held.hold(key, nowMs, this.on.speechPending())) this.handle(key, nowMs)
  }

  /** Keys that waited for a spoken turn go now if it is decided (or they waited long enough). */
  release(nowMs: number): void {
    for (const { key, at } of this.held.release(this.on.speechPending(), nowMs)) this.handle(key, at)
  }

  tick(nowMs: number): void {
    this.release(nowMs)
    const entry = this.entry.due(nowMs)
    if (entry) this.on.entry(entry, nowMs)
  }

  /** The call ended: every entry still open, held keys included, for the transcript. */
  drain(nowMs: number): Entry[] {
    const out: Entry[] = []
    for (const { key, at } of this.held.release(false, nowMs)) {
      const entry = this.entry.press(key, at)
      if (entry) out.push(entry)
    }
    const rest = this.entry.take()
    return rest ? [...out, rest] : out
  }

  private handle(key: string, atMs: number): void {
    this.on.key(key, atMs)
    const entry = this.entry.press(key, atMs)
    if (entry) this.on.entry(entry, atMs)
  }
}
