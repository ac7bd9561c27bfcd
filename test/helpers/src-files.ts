// The architecture tests read src/ as text: every .ts file, by its path relative to src/.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

export const SRC = resolve(import.meta.dir, '../../src')

/** Every .ts file under `dir`, as a path relative to src/ and its text. */
export function srcFiles(dir = SRC): Map<string, string> {
  const out = new Map<string, string>()
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) for (const [p, text] of srcFiles(path)) out.set(p, text)
    else if (name.endsWith('.ts')) out.set(relative(SRC, path), readFileSync(path, 'utf8'))
  }
  return out
}

/** Each match of `patterns` in `text`, as its line number and the matched text. */
export function matchesByLine(text: string, patterns: readonly RegExp[]): string[] {
  return patterns.flatMap((re) => [...text.matchAll(re)].map((m) => `${text.slice(0, m.index).split('\n').length}: ${m[0]}`))
}
