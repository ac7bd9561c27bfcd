import { Kind, type TSchema, TypeRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { t } from 'elysia'

export const WorkspaceParams = t.Object({ workspace_id: t.String() })
export const IdParams = t.Object({ id: t.String() })
export const Ok = t.Object({ ok: t.Literal(true) })
export const NextCursor = t.Union([t.String(), t.Null()], { description: 'cursor of the next page; null on the last page' })

export const ErrorResponse = t.Object(
  {
    error: t.Object({
      code: t.String({ description: 'stable machine-readable code' }),
      message: t.String(),
      details: t.Optional(t.Record(t.String(), t.Unknown())),
      requestId: t.String(),
    }),
  },
  { description: 'The one error body of every 4xx and 5xx response' },
)

// C0 and C1 controls (NUL, CR and LF among them), the line and paragraph separators, and the
// bidirectional embeddings, overrides and isolates that make a name display as something else.
const NAME_CHAR = '[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]'
export const NAME_PATTERN = `^${NAME_CHAR}*$`
const NOT_BLANK_NAME_PATTERN = `^(?=${NAME_CHAR}*\\S)${NAME_CHAR}*$`
export const NAME_ERROR = 'must not contain control characters (NUL, CR, LF, other C0/C1) or bidirectional overrides'

/** A human-readable name or label: one line of visible text. */
export const Name = (o: { minLength?: number; maxLength: number; notBlank?: boolean; description?: string }) =>
  t.String({
    minLength: o.minLength,
    maxLength: o.maxLength,
    pattern: o.notBlank ? NOT_BLANK_NAME_PATTERN : NAME_PATTERN,
    error: o.notBlank ? `must not be blank and ${NAME_ERROR}` : NAME_ERROR,
    ...(o.description ? { description: o.description } : {}),
  })

// Prose may break lines (tab, LF, CR); every other control and the bidirectional overrides are refused as in names.
const PROSE_PATTERN = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]*$'

/** A description or note: text of several lines, with no control characters (NUL, ESC, ...) or bidirectional overrides. */
export const Prose = (o: { maxLength: number; description?: string }) =>
  t.String({
    maxLength: o.maxLength,
    pattern: PROSE_PATTERN,
    error: 'must not contain control characters (NUL, ESC, other C0/C1; tab and line breaks are fine) or bidirectional overrides',
    ...(o.description ? { description: o.description } : {}),
  })

/** A {{placeholder}} name: letters, digits and _, never a name of Object.prototype's own. */
export const VARIABLE_NAME_PATTERN = '^(?!(?:__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_]{0,63}$'
export const MAX_VARIABLES = 64

const GUARDED = 'Guarded'
const INNER = Symbol('inner')
TypeRegistry.Set(GUARDED, (schema: { [INNER]: TSchema }, value: unknown) => Value.Check(schema[INNER], value))

/**
 * `inner`, checked as itself, but passed through Elysia's body mirror untouched. The mirror copies
 * bodies before validation by a schema's `type`: a string sent for a record became an object with
 * a key per character, one sent for a list of objects an array of an object per character (900,000
 * of them for a 900 KB string). A guarded schema has its own kind and no `type`; its `error` is the
 * message when the value is no such thing, and fromValidation names the inner issues.
 */
export function Guarded<T extends TSchema>(inner: T, error: string): T {
  const { type: _type, ...documented } = inner
  return { ...documented, error, [Kind]: GUARDED, [INNER]: inner } as unknown as T
}

/** The schema a Guarded schema checks, if `schema` is one. */
export const guardedInner = (schema: unknown): TSchema | undefined => (schema as { [INNER]?: TSchema } | undefined)?.[INNER]

/** A record field of a request body: at most `maxProperties` entries whose keys match `keyPattern` (others refused, not dropped). */
export function BodyRecord<V extends TSchema>(keyPattern: string, value: V, options: { maxProperties: number; description?: string }) {
  const record = t.Record(t.String({ pattern: keyPattern }), value, { additionalProperties: false, ...options })
  return Guarded(record, `must be an object of at most ${options.maxProperties} entries named by ${keyPattern}`)
}

/** Variables filled into {{name}} placeholders: at most MAX_VARIABLES, named by VARIABLE_NAME_PATTERN. */
export const Variables = <V extends TSchema>(value: V, description: string) =>
  BodyRecord(VARIABLE_NAME_PATTERN, value, { maxProperties: MAX_VARIABLES, description })

/** The `limit` and `cursor` query parameters of every list route; the paging itself is db/pagination.ts (keysetPage, finishPage). */
export const PaginationQuery = t.Object({
  limit: t.Optional(t.Integer({ title: 'limit', minimum: 1, maximum: 100, default: 50, description: 'page size, 1-100' })),
  cursor: t.Optional(t.String({ description: 'opaque cursor from the previous page\'s nextCursor' })),
})
