// Untrusted JSON bytes, bounded before they are parsed: no body can make a parser or validator
// walk more than its limits, so no request holds the event loop.
import { AppError } from '../errors.ts'

export const tooLarge = (limit: number) =>
  new AppError(413, 'payload_too_large', `request body exceeds ${limit} bytes`, { limitBytes: limit })

const badBody = (message: string) =>
  new AppError(422, 'validation_failed', `body: ${message}`, { fields: [{ path: 'body', location: 'body', message }] })

/** The JSON bytes the body scanners look at (here and in campaigns/upload/scan.ts). */
export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const OPEN_ARRAY = 0x5b
export const OPEN_OBJECT = 0x7b
export const CLOSE_ARRAY = 0x5d
export const CLOSE_OBJECT = 0x7d
export const COMMA = 0x2c
export const COLON = 0x3a
// JSON.parse keeps "__proto__" as an own key, but a later copy by assignment makes it the
// prototype; an own "toString" or "valueOf" makes turning the object into text throw (as
// Elysia's validation messages do). No field of the API is named so, anywhere.
const RESERVED_KEY = /"(__proto__|toString|valueOf)"\s*:/

export const JSON_LIMITS = {
  /** Deepest nesting of arrays and objects; the deepest schema needs 8. */
  depth: 32,
  /** Members of one array or object; the longest list of any schema is 2,000 (workflow edges). */
  members: 5_000,
  /** Values in the whole body (members of every array and object together). */
  values: 50_000,
}

/**
 * A campaign's upload (parsed off the event loop): up to 100,000 contacts with 20 values each on
 * average (a contact, its number, its variables); OUTBOUND_JOB_MAX_BODY_BYTES bounds the rest.
 */
export const JOB_JSON_LIMITS = { depth: JSON_LIMITS.depth, members: 100_000, values: 2_000_000 }

/**
 * What is wrong with the shape of JSON text, if anything: nesting, members of one container or
 * values in all. One pass without recursion, so a body of `[` x N is refused in O(N) before
 * JSON.parse, body cleaning or any validator walks it, and no request can make them walk more
 * than JSON_LIMITS. Works on bytes: quotes, backslashes, brackets and commas never occur inside
 * a multi-byte UTF-8 sequence. Invalid JSON is left for JSON.parse to refuse.
 */
export function jsonShapeProblem(bytes: Uint8Array, limits = JSON_LIMITS): string | undefined {
  const members = new Int32Array(limits.depth + 2)
  let depth = 0
  let values = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > limits.depth) return `is nested deeper than ${limits.depth} levels`
      members[depth] = 1
      values++
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth = Math.max(0, depth - 1)
    else if (c === COMMA) {
      if (++members[depth]! > limits.members) return `has an array or object with more than ${limits.members} members`
      if (++values > limits.values) return `has more than ${limits.values} values`
    }
  }
  return undefined
}

/** Reads a body whole, counting bytes as they arrive so a chunked upload cannot exceed the limit either. */
export async function readBytes(body: ReadableStream<Uint8Array>, limit: number, onChunk?: (chunk: Uint8Array) => void | Promise<void>): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > limit) throw tooLarge(limit)
      chunks.push(value)
      await onChunk?.(value)
    }
  } catch (err) {
    await reader.cancel().catch(() => {})
    throw err
  }
  return Buffer.concat(chunks)
}

/** Only JSON whitespace, or nothing. */
export function isBlank(bytes: Uint8Array): boolean {
  for (const c of bytes) if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false
  return true
}

/**
 * JSON text that must be an object within `limits`: refused by its shape before JSON.parse, body
 * cleaning or any validator walks it, so no request can make them walk more than the limits.
 */
export function parseJsonObject(bytes: Uint8Array, limits = JSON_LIMITS): object {
  if (isBlank(bytes)) return {}
  const problem = jsonShapeProblem(bytes, limits)
  if (problem) throw badBody(problem)
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  const reserved = RESERVED_KEY.exec(text)
  if (reserved) throw badBody(`must not use "${reserved[1]}" as a key`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new AppError(400, 'bad_request', 'request body is not valid JSON')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badBody('must be a JSON object')
  return value
}

export const isJsonType = (contentType: string) => /^application\/([a-z0-9.+-]+\+)?json\b/i.test(contentType)

export const unsupportedType = (what = 'request bodies must be JSON (Content-Type: application/json)') => new AppError(415, 'unsupported_media_type', what)
