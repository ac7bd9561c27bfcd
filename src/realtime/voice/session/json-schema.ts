/**
 * The subset of JSON Schema that tool arguments use: type, properties, required, enum, items,
 * additionalProperties: false, minimum/maximum, minLength/maxLength. Returns the problems found.
 */
export type Schema = {
  type?: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'null'
  properties?: Record<string, Schema>
  required?: string[]
  enum?: unknown[]
  items?: Schema
  additionalProperties?: boolean
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
}

/** Arguments nested deeper than this are refused rather than walked (the schema is one of a user's). */
const MAX_DEPTH = 32

export function validateArgs(schema: Schema, value: unknown, path = 'arguments', depth = 0): string[] {
  if (depth > MAX_DEPTH) return [`${path} is nested deeper than ${MAX_DEPTH} levels`]
  const problems: string[] = []
  const t = schema.type
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
  if (t === 'integer' ? !(typeof value === 'number' && Number.isInteger(value)) : t !== undefined && kind !== t) {
    return [`${path} must be ${t === 'integer' ? 'an integer' : `of type ${t}`}`]
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    problems.push(`${path} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`)
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${path} must be at least ${schema.minimum}`)
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${path} must be at most ${schema.maximum}`)
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) problems.push(`${path} is shorter than ${schema.minLength}`)
    if (schema.maxLength !== undefined && value.length > schema.maxLength) problems.push(`${path} is longer than ${schema.maxLength}`)
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => problems.push(...validateArgs(schema.items!, v, `${path}[${i}]`, depth + 1)))
  if (kind === 'object') {
    const obj = value as Record<string, unknown>
    for (const r of schema.required ?? []) if (!Object.hasOwn(obj, r)) problems.push(`${path}.${r} is required`)
    for (const [k, v] of Object.entries(obj)) {
      const sub = schema.properties && Object.hasOwn(schema.properties, k) ? schema.properties[k] : undefined
      if (sub) problems.push(...validateArgs(sub, v, `${path}.${k}`, depth + 1))
      else if (schema.additionalProperties === false) problems.push(`${path}.${k} is not allowed`)
    }
  }
  return problems
}
