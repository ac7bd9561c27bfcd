/** Stable error codes of the API; documented in docs/api.md. */
export type ErrorCode =
  | 'bad_request'
  | 'validation_failed'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'last_admin'
  | 'number_in_use'
  | 'payment_method_required'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'carrier_error'
  | 'carrier_not_configured'
  | 'payment_provider_error'
  | 'not_ready'
  | 'internal'

export interface FieldIssue {
  path: string
  message: string
}

/** The one error type services throw; the HTTP layer turns it into the JSON error body. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }
}

export const notFound = (what: string) => new AppError(404, 'not_found', `${what} not found`)
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new AppError(409, 'conflict', message, details)
// The message names the first few issues only; the HTTP layer cuts the list and each text short.
export const validation = (issues: FieldIssue[]) =>
  new AppError(422, 'validation_failed', issues.slice(0, 10).map((i) => `${i.path}: ${i.message}`).join('; '), { fields: issues })
export const invalidField = (path: string, message: string) => validation([{ path, message }])
