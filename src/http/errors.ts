import { AppError, type FieldIssue } from '../errors.ts'
import type { Logger } from '../log.ts'

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown>; requestId: string }
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  const error: ErrorBody['error'] = { code: err.code, message: err.message, requestId }
  if (err.details) error.details = err.details
  return { error }
}

/** JSON pointer (`/settings/maxConcurrent`, `/contacts/0/to`) to a field path (`settings.maxConcurrent`, `contacts[0].to`). */
export function pointerToPath(pointer: string): string {
  const parts = pointer.split('/').filter((p) => p !== '').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  let out = ''
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part
  return out
}

interface ValidationLike {
  type: string
  /** For coerced query numbers Elysia validates the property alone: its schema, with our title. */
  validator?: { title?: string }
  all: { path?: string; message?: string; summary?: string; schema?: { error?: unknown } }[]
}

/** Turns Elysia's validation error into ours, one issue per offending field path. */
export function fromValidation(err: ValidationLike): AppError {
  const seen = new Set<string>()
  const fields: (FieldIssue & { location: string })[] = []
  const location = err.type === 'property' ? 'query' : err.type
  for (const e of err.all) {
    const path = pointerToPath(e.path ?? '') || err.validator?.title || location
    if (seen.has(path)) continue
    seen.add(path)
    // Elysia's summaries end with "but found: <value>"; the value may be a secret, so it is cut.
    fields.push({ path, location, message: (e.summary ?? e.message ?? 'is invalid').replace(/,? but found: [\s\S]*$/, '') })
  }
  const message = fields.map((f) => `${f.path}: ${f.message}`).join('; ') || `invalid ${location}`
  const status = location === 'body' ? 422 : 400
  return new AppError(status, 'validation_failed', message, { fields })
}

/** Maps whatever was thrown to an AppError; unexpected errors are logged and hidden. */
export function toAppError(code: string | number, error: unknown, log: Logger, requestId: string): AppError {
  if (error instanceof AppError) return error
  if (code === 'VALIDATION') return fromValidation(error as ValidationLike)
  if (code === 'NOT_FOUND') return new AppError(404, 'not_found', 'no such route')
  // Errors thrown by our body parser (413, 415, bad JSON) reach here wrapped in Elysia's ParseError.
  if (code === 'PARSE') {
    const cause = (error as { cause?: unknown }).cause
    return cause instanceof AppError ? cause : new AppError(400, 'bad_request', 'request body is not valid JSON')
  }
  log.error({ err: error, requestId }, 'unhandled error')
  return new AppError(500, 'internal', 'internal error')
}
