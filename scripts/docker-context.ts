// Which files a `docker build` would send as its context, with the root's .dockerignore applied.
// The matching follows Docker's own (moby/patternmatcher, as the builder uses it):
// - a line is a pattern relative to the context root (leading and trailing / dropped, cleaned);
//   `!` before it lets matching paths back in; `#` lines and blank lines are skipped;
// - `*` is any run of characters but `/`, `?` one such character, `**` any number of whole
//   directories (also none), `[...]` a class, `\` escapes;
// - a path is left out when a pattern matches it or one of its parent directories; the last
//   pattern that matches decides;
// - a directory that is left out is not walked unless a `!` pattern could match inside it.
// Docker is not needed: `bun scripts/docker-context.ts [DIR]` prints the files, one a line.
import { readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'

interface Pattern {
  text: string
  exclusion: boolean
  regex: RegExp
  segments: string[]
}

export function parseDockerignore(text: string): Pattern[] {
  const out: Pattern[] = []
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const exclusion = line.startsWith('!')
    if (exclusion) line = line.slice(1).trim()
    line = posix.normalize(line).replace(/^\/+/, '').replace(/\/+$/, '')
    if (line === '.' || line === '') continue
    out.push({ text: line, exclusion, regex: toRegex(line), segments: line.split('/') })
  }
  return out
}

const SPECIAL = new Set(['.', '+', '(', ')', '|', '{', '}', '$', '^'])

function toRegex(pattern: string): RegExp {
  let re = '^'
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        i++
        if (pattern[i + 1] === '/') i++
        re += i + 1 >= pattern.length ? '.*' : '(.*/)?'
      } else re += '[^/]*'
    } else if (ch === '?') re += '[^/]'
    else if (ch === '\\') {
      i++
      re += i < pattern.length ? `\\${pattern[i]}` : '\\\\'
    } else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1)
      if (end < 0) re += '\\['
      else {
        re += `[${pattern.slice(i + 1, end).replace(/^!/, '^')}]`
        i = end
      }
    } else re += SPECIAL.has(ch) ? `\\${ch}` : ch
  }
  return new RegExp(`${re}$`)
}

/** Docker's MatchesOrParentMatches: is `path` (relative, `/`-separated) left out of the context? */
export function isIgnored(patterns: Pattern[], path: string): boolean {
  const parts = path.split('/')
  let ignored = false
  for (const p of patterns) {
    if (p.exclusion !== ignored) continue
    let match = p.regex.test(path)
    for (let i = 1; !match && i < parts.length; i++) match = p.regex.test(parts.slice(0, i).join('/'))
    if (match) ignored = !p.exclusion
  }
  return ignored
}

/** Could a `!` pattern let something inside the left-out directory `dir` back in? */
function mayReinclude(patterns: Pattern[], dir: string): boolean {
  const parts = dir.split('/')
  return patterns.some((p) => {
    if (!p.exclusion) return false
    for (let i = 0; i < parts.length; i++) {
      const seg = p.segments[i]
      if (seg === undefined) return false
      if (seg.includes('**')) return true
      if (!toRegex(seg).test(parts[i]!)) return false
    }
    return p.segments.length > parts.length
  })
}

/** The files (and symlinks) the context holds, sorted; `dockerignore` defaults to DIR/.dockerignore. */
export function contextFiles(root: string, dockerignore?: string): string[] {
  let text = dockerignore
  if (text === undefined) {
    try {
      text = readFileSync(join(root, '.dockerignore'), 'utf8')
    } catch {
      text = ''
    }
  }
  const patterns = parseDockerignore(text)
  const files: string[] = []
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name
      const ignored = isIgnored(patterns, path)
      if (entry.isDirectory()) {
        if (!ignored || mayReinclude(patterns, path)) walk(path)
      } else if (!ignored) files.push(path)
    }
  }
  walk('')
  return files.sort()
}

if (import.meta.main) {
  for (const file of contextFiles(process.argv[2] ?? join(import.meta.dir, '..'))) console.log(file)
}
