import { Database as Sqlite } from 'bun:sqlite'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database, Db } from './database.ts'

export interface DbHandle {
  db: Db
  sqlite: Sqlite
  close(): Promise<void>
}

/** Opens the SQLite file with WAL, foreign keys and a busy timeout, behind Kysely. */
export function openDatabase(file: string): DbHandle {
  const sqlite = new Sqlite(file, { create: true, strict: true })
  sqlite.exec('PRAGMA journal_mode = WAL')
  sqlite.exec('PRAGMA synchronous = NORMAL')
  sqlite.exec('PRAGMA foreign_keys = ON')
  sqlite.exec('PRAGMA busy_timeout = 5000')
  // Kysely's SqliteDialect is written for better-sqlite3; bun:sqlite offers the same calls it uses.
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite as never }) })
  return {
    db,
    sqlite,
    async close() {
      await db.destroy()
    },
  }
}
