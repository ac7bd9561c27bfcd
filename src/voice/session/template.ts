/** Fills `{{name}}` placeholders; unknown names become empty. Whitespace inside braces is allowed. */
export function fillTemplate(text: string, vars: Record<string, string | number | undefined>): string {
  return text.replace(/\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g, (_, name: string) => {
    const v = vars[name]
    return v === undefined ? '' : String(v)
  })
}
