import { isJsonType, parseJsonObject, readBytes, tooLarge, unsupportedType } from '../platform/schema/index.ts'

/** The routes whose body may exceed MAX_BODY_BYTES and be CSV: a campaign's contacts and their preview, read by their own routes (campaigns/upload). */
const UPLOAD_PATHS = new Set(['/api/outbound/jobs', '/api/outbound/jobs/preview'])

export const isJobUpload = (request: Request) => request.method === 'POST' && UPLOAD_PATHS.has(new URL(request.url).pathname)

/** A knowledge-base document's upload: its text in JSON (escaped) or base64 may be larger than the document. */
const KNOWLEDGE_UPLOAD = /^\/api\/knowledge-bases\/[^/]+\/documents\/?$/
export const isKnowledgeUpload = (request: Request) => request.method === 'POST' && KNOWLEDGE_UPLOAD.test(new URL(request.url).pathname)

export interface BodyLimits {
  MAX_BODY_BYTES: number
  OUTBOUND_JOB_MAX_BODY_BYTES: number
  KNOWLEDGE_MAX_DOCUMENT_BYTES: number
}

/** A document's upload body at most: its text twice over (escapes, base64) and room for the other fields. */
export const knowledgeUploadLimit = (limits: BodyLimits) => Math.max(limits.MAX_BODY_BYTES, 2 * limits.KNOWLEDGE_MAX_DOCUMENT_BYTES + 65_536)

export function bodyLimitFor(request: Request, limits: BodyLimits): number {
  if (isJobUpload(request)) return limits.OUTBOUND_JOB_MAX_BODY_BYTES
  return isKnowledgeUpload(request) ? knowledgeUploadLimit(limits) : limits.MAX_BODY_BYTES
}

/** Refuses early when Content-Length already says the body is too large. */
export function checkContentLength(request: Request, limit: number): void {
  const len = request.headers.get('content-length')
  if (len !== null && Number(len) > limit) throw tooLarge(limit)
}

/**
 * Reads a JSON body within `limit` bytes. An empty body reads as `{}` so that schema validation
 * names the missing fields. Every route takes an object, so any other JSON value is refused here
 * (Elysia would otherwise turn `"hello"` into `{}` on routes whose fields are all optional), as
 * is a body beyond JSON_LIMITS.
 */
export async function readJsonBody(request: Request, contentType: string, limit: number): Promise<unknown> {
  if (!request.body) return {}
  if (contentType && !isJsonType(contentType)) throw unsupportedType()
  return parseJsonObject(await readBytes(request.body, limit))
}
