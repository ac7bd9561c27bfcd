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

export function validateArgs(schema: Schema, value: unknown, path = 'arguments'): string[] {
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
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => problems.push(...validateArgs(schema.items!, v, `${path}[${i}]`)))
  if (kind === 'object') {
    const obj = value as Record<string, unknown>
    for (const r of schema.required ?? []) if (!(r in obj)) problems.push(`${path}.${r} is required`)
    for (const [k, v] of Object.entries(obj)) {
      const sub = schema.properties?.[k]
      if (sub) problems.push(...validateArgs(sub, v, `${path}.${k}`))
      else if (schema.additionalProperties === false) problems.push(`${path}.${k} is not allowed`)
    }
  }
  return problems
}
