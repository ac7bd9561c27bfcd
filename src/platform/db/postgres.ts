import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Database } from './database.ts'

const INT8 = 20
const NUMERIC = 1700

// Our bigint columns hold epoch milliseconds and counters, far below 2^53; count(*) and sum()
// are bigint and avg() numeric in PostgreSQL. All of them read as JS numbers, as on SQLite.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => (v === null ? null : Number(v))
    return pg.types.getTypeParser(oid, format as 'text')
  },
}

/** A pooled PostgreSQL connection behind Kysely's own PostgresDialect. */
export function openPostgresPool(url: string, max = 10): { db: Kysely<Database>; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max, types: types as never })
  // an idle pooled client whose server went away must not crash the process; the next query reconnects
  pool.on('error', () => {})
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool }
}

/** A single connection outside the pool (LISTEN needs one of its own). */
export function postgresClient(url: string): pg.Client {
  return new pg.Client({ connectionString: url, types: types as never })
}

/** `postgres://user:secret@host/db` with the password hidden, for logs and check-config. */
export function maskDatabaseUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(not a URL)'
  }
}
