// Finds a few top-level string fields of a JSON object while its bytes arrive, so that a job
// naming an unknown agent or number is refused before the rest of its contacts are read. Pure.

import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../../../platform/schema/index.ts'

/** Keys and ids are short; a longer top-level string is not kept (the full parse still reads it). */
const MAX_KEPT = 256

/**
 * A byte scanner tracking nesting and strings (quotes, backslashes and brackets never occur inside
 * a multi-byte UTF-8 sequence). Only strings at depth 1 are kept: keys, and the values of the
 * wanted keys. The first occurrence of a key counts; invalid JSON is left for the full parse.
 */
export class TopLevelStrings {
  readonly found = new Map<string, string>()
  private depth = 0
  private inString = false
  private escaped = false
  private kept: number[] | undefined
  private key: string | undefined
  private afterColon = false

  constructor(private readonly wanted: ReadonlySet<string>) {}

  /** All wanted keys have been seen. */
  get complete(): boolean {
    return this.found.size === this.wanted.size
  }

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (c === BACKSLASH) this.escaped = true
        else if (c === QUOTE) {
          this.inString = false
          this.endString()
          continue
        }
        if (this.kept) {
          if (this.kept.length < MAX_KEPT) this.kept.push(c)
          else this.kept = undefined
        }
      } else if (c === QUOTE) {
        this.inString = true
        this.kept = this.depth === 1 && (!this.afterColon || (this.key !== undefined && this.wanted.has(this.key))) ? [] : undefined
        if (this.depth === 1 && !this.afterColon) this.key = undefined
      } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) this.depth++
      else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) this.depth = Math.max(0, this.depth - 1)
      else if (this.depth === 1 && c === COLON) this.afterColon = true
      else if (this.depth === 1 && c === COMMA) {
        this.afterColon = false
        this.key = undefined
      }
    }
  }

  private endString(): void {
    const raw = this.kept
    this.kept = undefined
    if (!raw || this.depth !== 1) return
    let text: string
    try {
      text = JSON.parse(`"${Buffer.from(raw).toString('utf8')}"`) as string
    } catch {
      return
    }
    if (!this.afterColon) this.key = text
    else if (this.key !== undefined && this.wanted.has(this.key) && !this.found.has(this.key)) this.found.set(this.key, text)
  }
}
