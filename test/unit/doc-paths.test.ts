// The docs lead a newcomer to files: every path of the source tree they name exists, and the
// README stays a front page (its reference material lives in docs/).
import { expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'

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

/** GitHub's anchor of each heading of a Markdown text (a link as its text, lower case, punctuation dropped, spaces as hyphens, repeats numbered). */
function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)) {
    const slug = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    out.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return out
}

/** A relative Markdown link: `[text](target)` or `[text](target#anchor)`, outside code spans. */
const LINK = /\]\((?!https?:|mailto:|#)([^)\s#]*)(?:#([^)\s]+))?\)/g

/** A path of src/ written from its layer, in code: `features/calls/conversation/`, `platform/config/index.ts`. */
const LAYER_PATH = /`((?:platform|realtime|features|http|app)\/[\w./@-]*)`/g

test('every path of src/ the docs write from its layer (`features/...`) exists', () => {
  const missing = DOCS.flatMap((doc) => [...readFileSync(join(ROOT, doc), 'utf8').matchAll(LAYER_PATH)].map((m) => m[1]!).filter((p) => !existsSync(join(ROOT, 'src', p))).map((p) => `${doc}: ${p}`))
  expect(missing).toEqual([])
})

test('every relative link in the README and docs/ leads to a file that exists, and to a heading it has', () => {
  const broken: string[] = []
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8')
    for (const m of text.matchAll(LINK)) {
      const target = m[1] === '' ? doc : normalize(join(dirname(doc), m[1]!))
      const file = join(ROOT, target)
      if (!existsSync(file)) broken.push(`${doc}: ${m[0]} (no ${target})`)
      else if (m[2] && target.endsWith('.md') && !headingAnchors(readFileSync(file, 'utf8')).has(m[2])) broken.push(`${doc}: ${m[0]} (no heading #${m[2]} in ${target})`)
    }
  }
  expect(broken).toEqual([])
})

test("the anchors match GitHub's: a link read as its text, punctuation dropped, spaces as hyphens, a repeated heading numbered", () => {
  expect([...headingAnchors('## Cluster (issue 17, [docs/scale-out.md](docs/scale-out.md))\n## What `PUBLIC_HOST` is\n## Recordings\n### Recordings')]).toEqual([
    'cluster-issue-17-docsscale-outmd', 'what-public_host-is', 'recordings', 'recordings-1',
  ])
})

test('the README is a front page of under 250 lines', () => {
  expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(250)
})
