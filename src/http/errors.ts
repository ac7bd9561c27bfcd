import { isUnstorableText } from '../platform/db/index.ts'
import { CallRefused } from '../features/calls/runtime/refused.ts'
import { AppError, type ErrorCode } from '../platform/errors.ts'
import type { Logger } from '../platform/log.ts'
import { cut, fromValidation, MAX_FIELD_ISSUES, MAX_MESSAGE_CHARS, type ValidationLike } from '../platform/schema/index.ts'

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown>; requestId: string }
}

/** Error bodies stay small whatever the input: a few field issues, each cut short. */
const MAX_TEXT_CHARS = 1000


function capIssue(issue: unknown): unknown {
  if (!issue || typeof issue !== 'object') return issue
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(issue)) out[k] = typeof v === 'string' ? cut(v, MAX_MESSAGE_CHARS) : v
  return out
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  const error: ErrorBody['error'] = { code: err.code, message: cut(err.message, MAX_TEXT_CHARS), requestId }
  if (err.details) {
    const fields = err.details.fields
    error.details = Array.isArray(fields)
      ? { ...err.details, fields: fields.slice(0, MAX_FIELD_ISSUES).map(capIssue), ...(fields.length > MAX_FIELD_ISSUES ? { moreFields: fields.length - MAX_FIELD_ISSUES } : {}) }
      : err.details
  }
  return { error }
}

/** The error code of a refused call's HTTP status (the refusal policy decides the status). */
const REFUSAL_CODES: Record<number, ErrorCode> = { 403: 'forbidden', 404: 'not_found', 422: 'validation_failed', 503: 'not_ready' }

/** Maps whatever was thrown to an AppError; unexpected errors are logged and hidden. */
export function toAppError(code: string | number, error: unknown, log: Logger, requestId: string): AppError {
  if (error instanceof AppError) return error
  if (error instanceof CallRefused) {
    const code = REFUSAL_CODES[error.status] ?? 'not_ready'
    return new AppError(error.status, code, error.message, { reason: error.reason }, error.retryAfterSec === undefined ? undefined : { 'Retry-After': String(error.retryAfterSec) })
  }
  if (code === 'VALIDATION') return fromValidation(error as ValidationLike)
  if (code === 'NOT_FOUND') return new AppError(404, 'not_found', 'no such route')
  // Errors thrown by our body parser (413, 415, bad JSON) reach here wrapped in Elysia's ParseError.
  if (code === 'PARSE') {
    const cause = (error as { cause?: unknown }).cause
    return cause instanceof AppError ? cause : new AppError(400, 'bad_request', 'request body is not valid JSON')
  }
  if (isUnstorableText(error)) return new AppError(400, 'bad_request', 'text must not contain NUL (U+0000) characters')
  log.error({ err: error, requestId }, 'unhandled error')
  return new AppError(500, 'internal', 'internal error')
}
