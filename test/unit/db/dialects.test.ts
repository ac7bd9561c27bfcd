// One set of migrations for SQLite and PostgreSQL: the SQLite schema of the landed migrations is
// exactly what it was before they were made portable, PostgreSQL gets the same tables, and a
// database newer than the code is refused on both.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Migrator, sql } from 'kysely'
import { type Db, type DbHandle, cacheLifetimeMs, migrateToLatest, openDatabase, openPostgres, preparedRead, refusesNulText } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'

// The last migration that had landed when the migrations were made dialect-portable.
const LANDED = '2026-11-23T1840_outbound_jobs'
const SNAPSHOT = join(import.meta.dir, '../../fixtures/db/sqlite-schema.sql')
const pgTest = testNeedingPackage('postgresql', postgresInstalled())

function sqliteSchema(h: DbHandle): string {
  const rows = h.sqlite
    .query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'kysely_%' AND name NOT LIKE 'sqlite_%' ORDER BY type, name")
    .all() as { type: string; name: string; tbl_name: string; sql: string | null }[]
  return rows.map((r) => `-- ${r.type} ${r.name} on ${r.tbl_name}\n${r.sql ?? ''};\n`).join('\n')
}

const upTo = (name: string) => Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n <= name))

test('the landed migrations produce the same SQLite schema as before they were made portable', async () => {
  const h = openDatabase(':memory:')
  try {
    const { error } = await new Migrator({ db: h.db, provider: { getMigrations: async () => upTo(LANDED) } }).migrateToLatest()
    expect(error).toBeUndefined()
    expect(sqliteSchema(h)).toBe(readFileSync(SNAPSHOT, 'utf8'))
  } finally {
    await h.close()
  }
})

async function refusesNewerDatabase(h: DbHandle): Promise<void> {
  await migrateToLatest(h.db)
  // a later version of the appliance migrated this database: this code does not know its last migration
  await h.db.insertInto('kysely_migration' as never).values({ name: '2099-01-01T0000_from_the_future', timestamp: new Date().toISOString() } as never).execute()
  await expect(migrateToLatest(h.db)).rejects.toThrow(/2099-01-01T0000_from_the_future/)
}

test('SQLite: a database migrated by a newer version is refused', async () => {
  const h = openDatabase(':memory:')
  try {
    await refusesNewerDatabase(h)
  } finally {
    await h.close()
  }
})

let pg: DbHandle | undefined
beforeAll(async () => {
  if (postgresInstalled()) pg = openPostgres(await (await sharedPostgres()).createDatabase('dialects'), 2)
})
afterAll(async () => {
  await pg?.close()
})

pgTest('PostgreSQL: every migration applies, up and down, and builds the same tables and columns as SQLite', async () => {
  const db = pg!.db
  expect(await migrateToLatest(db)).toEqual(Object.keys(MIGRATIONS))
  const handle = openDatabase(':memory:')
  try {
    await migrateToLatest(handle.db)
    const liteColumns = handle.sqlite
      .query("SELECT m.name AS t, p.name AS c FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'kysely_%' AND m.name NOT LIKE 'sqlite_%' ORDER BY 1, 2")
      .all()
    const pgColumns = await sql<{ t: string; c: string }>`
      SELECT table_name AS t, column_name AS c FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name NOT LIKE 'kysely_%' ORDER BY table_name COLLATE "C", column_name COLLATE "C"`.execute(db)
    // the full-text index is each engine's own: FTS5 tables beside the passages, a tsvector column in them
    const lite = (liteColumns as { t: string; c: string }[]).filter((r) => !r.t.startsWith('knowledge_fts_'))
    expect(pgColumns.rows.filter((r) => !(r.t === 'knowledge_chunks' && r.c === 'tsv'))).toEqual(lite)
  } finally {
    await handle.close()
  }
  // epoch-millisecond columns hold today's times (past 2^31) and money keeps its digits
  const types = await sql<{ c: string; d: string }>`
    SELECT column_name AS c, data_type AS d FROM information_schema.columns
    WHERE (table_name, column_name) IN (('outbound_contacts', 'next_attempt_ms'), ('call_analyses', 'cost')) ORDER BY 1`.execute(db)
  expect(types.rows).toEqual([{ c: 'cost', d: 'double precision' }, { c: 'next_attempt_ms', d: 'bigint' }])
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
  const down = await migrator.migrateTo(Object.keys(MIGRATIONS)[0]!)
  expect(down.error).toBeUndefined()
  expect(await migrateToLatest(db)).toHaveLength(Object.keys(MIGRATIONS).length - 1)
})

pgTest('PostgreSQL: a database migrated by a newer version is refused', async () => {
  await refusesNewerDatabase(pg!)
})

test('SQLite: text may hold NUL, cached rows live until a write drops them', async () => {
  const h = openDatabase(':memory:')
  try {
    expect([refusesNulText(h.db), cacheLifetimeMs(h.db, 5_000)]).toEqual([false, Number.POSITIVE_INFINITY])
  } finally {
    await h.close()
  }
})

pgTest('PostgreSQL: a prepared read is a promise, NUL text is refused, cached rows expire (other nodes write too)', async () => {
  const h = openPostgres(await (await sharedPostgres()).createDatabase('reads'), 1)
  try {
    await migrateToLatest(h.db)
    expect([refusesNulText(h.db), cacheLifetimeMs(h.db, 5_000)]).toEqual([true, 5_000])
    const read = preparedRead((db: Db, id: string) => db.selectFrom('workspaces').select('id').where('id', '=', id))
    const pending = read(h.db, 'ws_none')
    expect(pending).toBeInstanceOf(Promise)
    expect(await pending).toBeUndefined()
  } finally {
    await h.close()
  }
})
