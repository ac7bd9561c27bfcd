import { Database as Sqlite } from 'bun:sqlite'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database, Db } from './database.ts'
import { checkpointOffLoop } from './checkpoint.ts'
import type { DbKind } from './dialect.ts'
import { openPostgresPool } from './postgres.ts'

export interface DbHandle {
  kind: DbKind
  db: Db
  /** The raw SQLite connection (tests, benchmarks); throws on PostgreSQL. */
  sqlite: Sqlite
  close(): Promise<void>
}

// The read-only connection of each database opened on a file, for preparedRead.
const readers = new WeakMap<Db, Sqlite>()

/** The read-only connection beside `db`, if it has one (not for transactions or in-memory databases). */
export const readerOf = (db: Db): Sqlite | undefined => readers.get(db)

/** Opens the SQLite file with WAL, foreign keys and a busy timeout, behind Kysely. */
export function openDatabase(file: string): DbHandle {
  const sqlite = new Sqlite(file, { create: true, strict: true })
  sqlite.exec('PRAGMA journal_mode = WAL')
  sqlite.exec('PRAGMA synchronous = NORMAL')
  sqlite.exec('PRAGMA foreign_keys = ON')
  sqlite.exec('PRAGMA busy_timeout = 5000')
  // Kysely's SqliteDialect is written for better-sqlite3 and prepares every statement anew
  // (tens of microseconds each); bun:sqlite's query() caches prepared statements by SQL text.
  const cached = { prepare: (text: string) => sqlite.query(text), close: () => sqlite.close() }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cached as never }) })
  // Hot reads run synchronously on a second, read-only connection. Under WAL it reads the last
  // committed state and never sees a transaction that Kysely holds open on the writer.
  let reader: Sqlite | undefined
  if (file !== ':memory:' && file !== '') {
    reader = new Sqlite(file, { readonly: true, strict: true })
    reader.exec('PRAGMA busy_timeout = 5000')
    readers.set(db, reader)
  }
  const stopCheckpoints = reader ? checkpointOffLoop(sqlite, file) : undefined
  return {
    kind: 'sqlite',
    db,
    sqlite,
    async close() {
      readers.delete(db)
      stopCheckpoints?.()
      reader?.close()
      await db.destroy()
    },
  }
}

/** PostgreSQL at `url` (postgres://...), pooled. */
export function openPostgres(url: string, poolSize?: number): DbHandle {
  const { db } = openPostgresPool(url, poolSize)
  return {
    kind: 'postgres',
    db,
    get sqlite(): Sqlite {
      throw new Error('this appliance runs on PostgreSQL: there is no SQLite connection')
    },
    close: () => db.destroy(),
  }
}
