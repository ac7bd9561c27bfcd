// Fields a request names that its schema does not declare: refused and named, never dropped.
// Elysia's body mirror (its `normalize`) strips undeclared properties before validation, so a
// misspelt field would otherwise answer 200 and change nothing; this walk sees the body as sent.
import { type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { AppError } from '../errors.ts'
import { guardedInner } from './models.ts'
import { pointerToPath } from './validation.ts'

export const UNKNOWN_FIELD = 'unknown field'

interface Shape {
  type?: unknown
  properties?: Record<string, TSchema>
  patternProperties?: Record<string, TSchema>
  additionalProperties?: boolean | TSchema
  items?: TSchema | TSchema[]
  anyOf?: TSchema[]
  allOf?: TSchema[]
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * The JSON pointers of the members of `value` that `schema` does not declare. An object schema is
 * closed unless it says otherwise: `additionalProperties: true` or a schema, or a record's key
 * patterns. t.Unknown, t.Any and other schemas without a shape accept anything beneath them.
 * A member of the wrong type (an object where a string is declared) is validation's to name.
 */
export function unknownFields(schema: TSchema, value: unknown, pointer = ''): string[] {
  const out: string[] = []
  walk(schema, value, pointer, out)
  return out
}

function walk(schema: TSchema, value: unknown, pointer: string, out: string[]): void {
  if (value === null || typeof value !== 'object') return
  const s = (guardedInner(schema) ?? schema) as Shape
  if (s.anyOf) return union(s.anyOf, value, pointer, out)
  if (s.allOf) return walk(merged(s.allOf), value, pointer, out)
  if (Array.isArray(value)) {
    const items = s.type === 'array' ? s.items : undefined
    if (Array.isArray(items)) value.forEach((v, i) => items[i] && walk(items[i], v, `${pointer}/${i}`, out))
    else if (items) value.forEach((v, i) => walk(items, v, `${pointer}/${i}`, out))
    return
  }
  if (s.type === 'object' && isObject(value)) members(s, value, pointer, out)
}

function members(s: Shape, value: Record<string, unknown>, pointer: string, out: string[]): void {
  const props = s.properties ?? {}
  const patterns = patternsOf(s)
  const extra = s.additionalProperties
  for (const key of Object.keys(value)) {
    const at = `${pointer}/${escape(key)}`
    const declared = Object.hasOwn(props, key) ? props[key] : patterns.find(([re]) => re.test(key))?.[1]
    if (declared) walk(declared, value[key], at, out)
    else if (typeof extra === 'object') walk(extra, value[key], at, out)
    // a record refusing keys outside its patterns: validation names them with the record's own message
    else if (extra !== true && !(patterns.length && extra === false)) out.push(at)
  }
}

// compiled once per schema: a campaign's upload walks one record schema for each of 100,000 contacts
const compiled = new WeakMap<Shape, (readonly [RegExp, TSchema])[]>()
function patternsOf(s: Shape): (readonly [RegExp, TSchema])[] {
  let patterns = compiled.get(s)
  if (!patterns) compiled.set(s, (patterns = Object.entries(s.patternProperties ?? {}).map(([p, v]) => [new RegExp(p), v] as const)))
  return patterns
}

/** The first member the value is valid for decides; when it is valid for none, validation speaks. */
function union(anyOf: TSchema[], value: unknown, pointer: string, out: string[]): void {
  let first: string[] | undefined
  for (const member of anyOf) {
    if (!Value.Check(member, value)) continue
    const found = unknownFields(member, value, pointer)
    if (!found.length) return
    first ??= found
  }
  if (first) out.push(...first)
}

/** An intersection declares what any of its members declares. */
function merged(allOf: TSchema[]): TSchema {
  const parts = allOf.map((m) => (guardedInner(m) ?? m) as Shape)
  const open = parts.some((p) => p.additionalProperties === true || typeof p.additionalProperties === 'object')
  return {
    type: 'object',
    properties: Object.assign({}, ...parts.map((p) => p.properties)),
    patternProperties: Object.assign({}, ...parts.map((p) => p.patternProperties)),
    ...(open ? { additionalProperties: true } : {}),
  } as unknown as TSchema
}

export interface UnknownFieldIssue {
  path: string
  location: 'body' | 'query'
  message: typeof UNKNOWN_FIELD
}

/** One issue per undeclared field of `value`, in the shape of the other validation issues. */
export function unknownFieldIssues(schema: TSchema, value: unknown, location: 'body' | 'query', pointer = ''): UnknownFieldIssue[] {
  return unknownFields(schema, value, pointer).map((p) => ({ path: pointerToPath(p) || location, location, message: UNKNOWN_FIELD }))
}

/** 422 naming every undeclared field of a body read by its route itself; nothing when all are declared. */
export function refuseUnknownFields(schema: TSchema, value: unknown): void {
  const fields = unknownFieldIssues(schema, value, 'body')
  if (fields.length) throw new AppError(422, 'validation_failed', fields.slice(0, 10).map((f) => `${f.path}: ${f.message}`).join('; '), { fields })
}
