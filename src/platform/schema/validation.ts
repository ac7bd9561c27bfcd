// Validation errors as the API reports them: one issue per field path, values never echoed.
import type { TSchema } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'
import { AppError, type FieldIssue } from '../errors.ts'
import { guardedInner } from './models.ts'

export const MAX_FIELD_ISSUES = 10
export const MAX_MESSAGE_CHARS = 300

export const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** JSON pointer (`/settings/maxConcurrent`, `/contacts/0/to`) to a field path (`settings.maxConcurrent`, `contacts[0].to`). */
export function pointerToPath(pointer: string): string {
  const parts = pointer.split('/').filter((p) => p !== '').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
  let out = ''
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part
  return out
}

export interface ValidationLike {
  type: string
  /** For coerced query numbers Elysia validates the property alone: its schema, with our title. */
  validator?: { title?: string }
  all: { type?: number; path?: string; message?: string; summary?: string; value?: unknown; schema?: { error?: unknown } }[]
}

// Elysia's list of issues formats the offending values; should that ever throw, the request
// still gets a 422 naming the part that is wrong.
function allIssues(err: ValidationLike): ValidationLike['all'] {
  try {
    return err.all
  } catch {
    return [{ message: 'is invalid' }]
  }
}

/** The issues inside a Guarded schema (its own check reports only that it failed). */
function* guardedIssues(schema: TSchema, value: unknown, prefix: string): Generator<ValidationLike['all'][number]> {
  for (const e of Value.Errors(schema, value)) {
    const inner = e.type === ValueErrorType.Kind ? guardedInner(e.schema) : undefined
    if (inner) yield* guardedIssues(inner, e.value, prefix + e.path)
    else yield { type: e.type, path: prefix + e.path, message: e.message, schema: e.schema as { error?: unknown } }
  }
}

function* expanded(all: ValidationLike['all']): Generator<ValidationLike['all'][number]> {
  for (const e of all) {
    const inner = e.type === ValueErrorType.Kind ? guardedInner(e.schema) : undefined
    if (!inner) yield e
    else {
      let any = false
      for (const issue of guardedIssues(inner, e.value, e.path ?? '')) {
        any = true
        yield issue
      }
      if (!any) yield e
    }
  }
}

/** Turns Elysia's validation error into ours, one issue per offending field path. */
export function fromValidation(err: ValidationLike): AppError {
  const seen = new Set<string>()
  const fields: (FieldIssue & { location: string })[] = []
  const location = err.type === 'property' ? 'query' : err.type
  for (const e of expanded(allIssues(err))) {
    if (fields.length >= MAX_FIELD_ISSUES) break
    const path = pointerToPath(e.path ?? '') || err.validator?.title || location
    if (seen.has(path)) continue
    seen.add(path)
    // Elysia's summaries end with "but found: <value>"; the value may be a secret, so it is cut.
    // A pattern or a kind of ours may come with its own message (`error`): names, body records.
    const own = (e.type === ValueErrorType.StringPattern || e.type === ValueErrorType.Kind) && typeof e.schema?.error === 'string' ? e.schema.error : undefined
    fields.push({ path, location, message: own ?? (e.summary ?? e.message ?? 'is invalid').replace(/,? but found: [\s\S]*$/, '') })
  }
  const message = fields.map((f) => `${f.path}: ${cut(f.message, MAX_MESSAGE_CHARS)}`).join('; ') || `invalid ${location}`
  const status = location === 'body' ? 422 : 400
  return new AppError(status, 'validation_failed', message, { fields })
}
