// Every difference between SQLite and PostgreSQL is decided in src/platform/db/: when services branched
// on the engine themselves, each read grew a sync and an async twin and each long loop its own
// copy of the turn given to the event loop. Outside src/platform/db/ code asks db/ a question named for
// its reason (refusesNulText, cacheLifetimeMs, sharedByNodes); naming the engine
// to decide something fails here. config.ts is exempt: it checks the setting itself.
import { expect, test } from 'bun:test'
import { matchesByLine, srcFiles } from '../helpers/src-files.ts'

const EXEMPT = ['platform/db/', 'platform/config/index.ts']

const BRANCHES = [
  // db/'s own predicate
  /\bisPostgres\s*\(/g,
  // the engine's name compared: kindOf(db) === 'postgres', 'sqlite' !== x, dialect === "postgres"
  /[!=]==?\s*['"`](?:postgres|sqlite)['"`]|['"`](?:postgres|sqlite)['"`]\s*[!=]==?/gi,
  // Kysely's adapters and dialects told apart
  /\binstanceof\s+(?:Postgres|Sqlite)(?:Adapter|Dialect|Driver)\b/g,
  // the configured URL deciding the engine: cfg.DATABASE_URL ? a : b, !config.DATABASE_URL, if (c.DATABASE_URL)
  /\.DATABASE_URL\s*(?:[!=]==?|\?|&&|\|\|)|!\s*[\w.]+\.DATABASE_URL\b|\bif\s*\(\s*[\w.]+\.DATABASE_URL\s*\)/g,
]

/** Each branch on the engine in `text`, as its line number and the matched text. */
export function dialectBranches(text: string): string[] {
  return matchesByLine(text, BRANCHES)
}

test('no file of src/ outside db/ branches on the database engine', () => {
  const elsewhere = [...srcFiles()]
    .filter(([file]) => !EXEMPT.some((e) => file === e || file.startsWith(e)))
    .flatMap(([file, text]) => dialectBranches(text).map((b) => `${file}:${b}`))
  expect(elsewhere).toEqual([])
})

test('db/ is where the engine is decided', () => {
  expect(dialectBranches(srcFiles().get('platform/db/dialect.ts')!).length).toBeGreaterThan(0)
})

test('the scan finds every way of branching on the engine, and no mere mention', () => {
  const branches = [
    'if (isPostgres(db)) return',
    "const refuse = isPostgres(trx) ? a : b",
    "kindOf(db) === 'postgres' ? x : y",
    "handle.kind === 'sqlite'",
    "if ('postgres' !== kind) return",
    'dialect === "postgres"',
    'db.getExecutor().adapter instanceof PostgresAdapter',
    'const postgres = config.DATABASE_URL !== \'\'',
    'const handle = cfg.DATABASE_URL ? openPostgres(url) : openDatabase(file)',
    'if (!cfg.DATABASE_URL && missing) return 1',
    'if (cfg.DATABASE_URL) return fail(io, 2, message)',
  ]
  for (const b of branches) expect(dialectBranches(b)).toHaveLength(1)
  const mentions = [
    "log.info({ database: describeDatabase(config) }, 'node starting')",
    "const node = { database: kindOf(db) }",
    "key === 'DATABASE_URL' && value !== ''",
    "DATABASE_URL: { default: '', doc: 'postgres://user:password@host/db' }",
    "if (refusesNulText(db)) return refuse(url)",
    "// on postgres the read is a promise",
  ]
  for (const m of mentions) expect(dialectBranches(m)).toEqual([])
})
