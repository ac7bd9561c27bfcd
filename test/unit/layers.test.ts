// The layers of src/, each folder with a rank (the table is scripts/architecture.ts, which also
// writes ARCHITECTURE.md from it): a file imports only folders of a lower rank (or
// its own folder). The HTTP layer is http/ and every feature's *.http.ts; nothing else imports it.
// A *.table.ts is the database schema that platform/db/database.ts gathers: its types may be read
// from any layer (`import type`).
import { expect, test } from 'bun:test'
import { dirname, join, normalize } from 'node:path'
import { HTTP_RANK, RANKS } from '../../scripts/architecture.ts'
import { srcFiles } from '../helpers/src-files.ts'

/** The ranked folder (or loose file) a path of src/ belongs to. */
function unitOf(path: string): string | undefined {
  const parts = path.split('/')
  for (const n of [2, 1]) {
    const key = parts.slice(0, n).join('/')
    if (key in RANKS) return key
  }
  return undefined
}

const isHttp = (path: string) => path.startsWith('http/') || path.endsWith('.http.ts')
const rankOf = (path: string) => (isHttp(path) ? HTTP_RANK : RANKS[unitOf(path) ?? ''])

const IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm

/** The src/ files a file imports (relative specifiers), each with whether it is `import type` only. */
function importsOf(path: string, text: string): { to: string; typeOnly: boolean; line: number }[] {
  return [...text.matchAll(IMPORT)].map((m) => ({
    to: normalize(join(dirname(path), (m[2] ?? m[3])!)),
    typeOnly: m[1] !== undefined,
    line: text.slice(0, m.index).split('\n').length,
  }))
}

/** Each import that breaks the ranks, as `from:line -> to (why)`. */
function rankViolations(files: Map<string, string>): string[] {
  const out: string[] = []
  for (const [from, text] of files) {
    for (const { to, typeOnly, line } of importsOf(from, text)) {
      if (to.startsWith('..')) continue // outside src/ (node_modules' files)
      if (typeOnly && to.endsWith('.table.ts')) continue
      const a = unitOf(from)
      const b = unitOf(to)
      const where = `${from}:${line} -> ${to}`
      if (isHttp(to) && !isHttp(from) && !(from === 'app/appliance.ts' || from === 'app/http.ts')) out.push(`${where} (only the HTTP layer and the composition root import routes)`)
      else if (isHttp(from) && isHttp(to) && !to.startsWith('http/') && !from.startsWith('http/') && a !== b) out.push(`${where} (one feature's routes import another's)`)
      else if (a === b || (isHttp(from) && isHttp(to))) continue
      else if (rankOf(from)! <= rankOf(to)!) out.push(`${where} (rank ${rankOf(from)} imports rank ${rankOf(to)})`)
    }
  }
  return out
}

test('every folder of src/ has a rank', () => {
  expect([...srcFiles().keys()].filter((f) => unitOf(f) === undefined)).toEqual([])
})

test('no layer imports a layer above it, and only the HTTP layer imports routes', () => {
  expect(rankViolations(srcFiles())).toEqual([])
})

test('the rank check finds an upward import, a feature reaching into http/ and routes imported by a service', () => {
  const files = new Map([
    ['platform/db/client.ts', "import { snapshotAgent } from '../../features/agents/index.ts'"],
    ['features/agents/agents.service.ts', "import type { Db } from '../../platform/db/index.ts'\nimport { createAuth } from '../../http/auth.ts'"],
    ['features/calls/calls.service.ts', "import {\n  agentsController,\n} from '../agents/agents.http.ts'"],
    ['features/calls/calls.http.ts', "import type { AuthPlugin } from '../../http/auth.ts'\nimport { numbersController } from '../numbers/numbers.http.ts'"],
    ['realtime/media/engine.ts', "import type { CallRow } from '../../features/calls/calls.table.ts'\nconst m = await import('../voice/index.ts')"],
  ])
  expect(rankViolations(files)).toEqual([
    'platform/db/client.ts:1 -> features/agents/index.ts (rank 5 imports rank 22)',
    'features/agents/agents.service.ts:2 -> http/auth.ts (only the HTTP layer and the composition root import routes)',
    'features/calls/calls.service.ts:1 -> features/agents/agents.http.ts (only the HTTP layer and the composition root import routes)',
    "features/calls/calls.http.ts:2 -> features/numbers/numbers.http.ts (one feature's routes import another's)",
    'realtime/media/engine.ts:2 -> realtime/voice/index.ts (rank 11 imports rank 12)',
  ])
})
