// The docs lead a newcomer to files: every path of the source tree they name exists, and the
// README stays a front page (its reference material lives in docs/).
import { expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')
const DOCS = ['README.md', 'CONTRIBUTING.md', 'BENCHMARKS.md', 'ARCHITECTURE.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
/** A path into the tree, not part of a longer word or path; globs and <placeholders> are not paths. */
const PATH = /(?<![\w./-])((?:src|test|scripts|deploy)\/[\w./@-]+)/g

test('every src/, test/, scripts/ and deploy/ path named in the README and docs/ exists', () => {
  const missing: string[] = []
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8')
    for (const m of text.matchAll(PATH)) {
      const path = m[1]!.replace(/[.,:;)]+$/, '')
      const next = text[m.index! + m[0].length]
      if (next === '*' || next === '<') continue
      if (!existsSync(join(ROOT, path))) missing.push(`${doc}: ${path}`)
    }
  }
  expect(missing).toEqual([])
})

test('the README is a front page of under 250 lines', () => {
  expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(250)
})
