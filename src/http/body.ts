import { AppError } from '../errors.ts'

const tooLarge = (limit: number) =>
  new AppError(413, 'payload_too_large', `request body exceeds ${limit} bytes`, { limitBytes: limit })

/** The one route whose body may exceed MAX_BODY_BYTES and be CSV: a campaign's contacts. */
export const isJobUpload = (request: Request) => request.method === 'POST' && new URL(request.url).pathname === '/api/outbound/jobs'

export function bodyLimitFor(request: Request, limits: { MAX_BODY_BYTES: number; OUTBOUND_JOB_MAX_BODY_BYTES: number }): number {
  return isJobUpload(request) ? limits.OUTBOUND_JOB_MAX_BODY_BYTES : limits.MAX_BODY_BYTES
}

/** Refuses early when Content-Length already says the body is too large. */
export function checkContentLength(request: Request, limit: number): void {
  const len = request.headers.get('content-length')
  if (len !== null && Number(len) > limit) throw tooLarge(limit)
}

/**
 * Reads a JSON body, counting bytes as they arrive so a chunked upload cannot exceed the limit
 * either. An empty body reads as `{}` so that schema validation names the missing fields.
 */
export async function readJsonBody(request: Request, contentType: string, limit: number, acceptCsv = false): Promise<unknown> {
  if (!request.body) return {}
  const csv = acceptCsv && /^text\/csv\b/i.test(contentType)
  if (contentType && !csv && !/^application\/([a-z0-9.+-]+\+)?json\b/i.test(contentType)) {
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
  const text = Buffer.concat(chunks).toString('utf8')
  if (csv) return text
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text)
  } catch {
    throw new AppError(400, 'bad_request', 'request body is not valid JSON')
  }
}
