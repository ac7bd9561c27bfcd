// Which database the settings name, decided once: PostgreSQL at DATABASE_URL, which the nodes
// naming it share, or else the SQLite file in DATA_DIR, which one process owns.
import { join } from 'node:path'
import { DATABASE_FILE } from '../data-dir.ts'
import { type DbHandle, openDatabase, openPostgres } from './client.ts'
import { maskDatabaseUrl } from './postgres.ts'

/** The settings that name the database (a Config has them). */
export interface DatabaseSettings {
  DATABASE_URL: string
  DATA_DIR: string
  DATABASE_POOL_SIZE?: number
}

/** The SQLite file in DATA_DIR, or undefined when DATABASE_URL names a PostgreSQL database. */
export const sqliteFileOf = (s: DatabaseSettings): string | undefined => (s.DATABASE_URL === '' ? join(s.DATA_DIR, DATABASE_FILE) : undefined)

/**
 * True when several nodes may share the database (PostgreSQL): they coordinate through leases,
 * presence and change notifications. A SQLite file has one process, under the DATA_DIR lock.
 */
export const sharedByNodes = (s: DatabaseSettings): boolean => sqliteFileOf(s) === undefined

/** Opens the database the settings name; `poolSize` overrides DATABASE_POOL_SIZE. */
export function openConfigured(s: DatabaseSettings, poolSize = s.DATABASE_POOL_SIZE): DbHandle {
  const file = sqliteFileOf(s)
  return file === undefined ? openPostgres(s.DATABASE_URL, poolSize) : openDatabase(file)
}

/** `postgres <URL with the password masked>` or `sqlite <file>`, for logs and check-config. */
export function describeDatabase(s: DatabaseSettings): string {
  const file = sqliteFileOf(s)
  return file === undefined ? `postgres ${maskDatabaseUrl(s.DATABASE_URL)}` : `sqlite ${file}`
}
