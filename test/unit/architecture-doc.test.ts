// ARCHITECTURE.md is written by scripts/architecture.ts from the ranks layers.test.ts enforces:
// a rank or unit changed without regenerating it leaves the file stale, and this fails.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { ARCHITECTURE_FILE, architectureMarkdown, layers, UNITS } from '../../scripts/architecture.ts'

test('ARCHITECTURE.md is what scripts/architecture.ts writes from the enforced ranks (run it after changing a rank)', () => {
  expect(readFileSync(ARCHITECTURE_FILE, 'utf8')).toBe(architectureMarkdown())
})

test('the layers read in rank order: platform < realtime < features < http < app, each rank band its own', () => {
  const bands = layers().map((l) => ({ name: l.name, min: Math.min(...l.units.map((u) => u.rank)), max: Math.max(...l.units.map((u) => u.rank)) }))
  expect(bands.map((b) => b.name)).toEqual(['platform', 'realtime', 'features', 'http', 'app'])
  for (let i = 1; i < bands.length; i++) expect(bands[i]!.min).toBeGreaterThan(bands[i - 1]!.max)
})

test('every unit of the rank table has a purpose and appears in ARCHITECTURE.md', () => {
  const text = architectureMarkdown()
  expect(UNITS.filter((u) => u.purpose.trim() === '' || !text.includes(`| ${u.rank} | \`src/${u.path}\` | ${u.purpose} |`))).toEqual([])
})

test('a rank changed in the table changes the document, so a stale file is caught', () => {
  const moved = UNITS.map((u) => (u.path === 'features/knowledge' ? { ...u, rank: 24 } : u))
  expect(architectureMarkdown(moved)).not.toBe(architectureMarkdown())
  expect(architectureMarkdown(moved)).toContain('| 24 | `src/features/knowledge` |')
})
