const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g

/** The distinct {{variable}} names in the given texts, sorted. Pure. */
export function templateVariables(...texts: string[]): string[] {
  const names = new Set<string>()
  for (const text of texts) for (const m of text.matchAll(PLACEHOLDER)) names.add(m[1] as string)
  return [...names].sort()
}

/** Fills {{variable}} placeholders; unknown names are left as written so a missing value shows. */
export function fillTemplate(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? (values[name] as string) : whole))
}
