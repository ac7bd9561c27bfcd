// The one {{placeholder}} filler: prompts, welcome messages, fixed lines and workflow nodes
// all render `{{name}}` and `{{a.b}}` the same way.
export type Variables = Record<string, unknown>

/** Reads `a.b.c` from nested objects (and arrays by index); undefined when any step is missing. */
export function readPath(root: unknown, path: string): unknown {
  let cur: unknown = root
  for (const part of path.split('.')) {
    // Own properties only: `{{constructor}}` must not reach into Object.prototype.
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, part)) return undefined
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

/** The distinct {{variable}} names in the given texts, sorted (what fillTemplate would fill). */
export function templateVariables(...texts: string[]): string[] {
  const names = new Set<string>()
  for (const text of texts) for (const m of text.matchAll(PLACEHOLDER)) names.add(m[1] as string)
  return [...names].sort()
}
