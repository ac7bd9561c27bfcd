import { AppError } from '../errors.ts'

/** Deepest nesting of arrays and objects a JSON body may have; the deepest schema needs 8. */
export const MAX_JSON_DEPTH = 32

const tooLarge = (limit: number) =>
  new AppError(413, 'payload_too_large', `request body exceeds ${limit} bytes`, { limitBytes: limit })

const badBody = (message: string) =>
  new AppError(422, 'validation_failed', `body: ${message}`, { fields: [{ path: 'body', location: 'body', message }] })

/** Refuses early when Content-Length already says the body is too large. */
export function checkContentLength(request: Request, limit: number): void {
  const len = request.headers.get('content-length')
  if (len !== null && Number(len) > limit) throw tooLarge(limit)
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d

/**
 * The nesting depth of JSON text, up to `max + 1`, in one pass and without recursion, so a body
 * of `[` x N is refused in O(N) before JSON.parse or any validator walks it. Works on bytes:
 * quotes, backslashes and brackets never occur inside a multi-byte UTF-8 sequence. Invalid JSON
 * is left for JSON.parse to refuse.
 */
export function jsonDepth(bytes: Uint8Array, max = MAX_JSON_DEPTH): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > deepest) {
        deepest = depth
        if (deepest > max) return deepest
      }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--
  }
  return deepest
}

/** The first non-whitespace byte, or undefined for a blank body. */
function firstByte(bytes: Uint8Array): number | undefined {
  for (const c of bytes) if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c
  return undefined
}

/**
 * Reads a JSON body, counting bytes as they arrive so a chunked upload cannot exceed the limit
 * either. An empty body reads as `{}` so that schema validation names the missing fields. Every
 * route takes an object, so any other JSON value is refused here (Elysia would otherwise turn
 * `"hello"` into `{}` on routes whose fields are all optional), as is nesting beyond MAX_JSON_DEPTH.
 */
export async function readJsonBody(request: Request, contentType: string, limit: number): Promise<unknown> {
  if (!request.body) return {}
  if (contentType && !/^application\/([a-z0-9.+-]+\+)?json\b/i.test(contentType)) {
    throw new AppError(415, 'unsupported_media_type', 'request bodies must be JSON (Content-Type: application/json)')
  }
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = request.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel()
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  const bytes = Buffer.concat(chunks)
  const first = firstByte(bytes)
  if (first === undefined) return {}
  if (jsonDepth(bytes) > MAX_JSON_DEPTH) throw badBody(`is nested deeper than ${MAX_JSON_DEPTH} levels`)
  let value: unknown
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new AppError(400, 'bad_request', 'request body is not valid JSON')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badBody('must be a JSON object')
  return value
}
