export type Variables = Record<string, unknown>

/** Reads `a.b.c` from nested objects (and arrays by index); undefined when any step is missing. */
export function readPath(root: unknown, path: string): unknown {
  let cur: unknown = root
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[part]
  }
  return cur
}

export function lookup(variables: Variables, name: string): unknown {
  if (Object.hasOwn(variables, name)) return variables[name]
  return readPath(variables, name)
}

export function stringify(v: unknown): string {
  if (v === undefined || v === null) return ''
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return JSON.stringify(v)
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g

/**
 * Fills `{{name}}` and `{{name.path}}` placeholders. A variable that is not set becomes the
 * empty string: the text is spoken to a caller, who must never hear a raw placeholder.
 */
export function fillTemplate(text: string, variables: Variables): string {
  return text.replace(PLACEHOLDER, (_, name: string) => stringify(lookup(variables, name)))
}
