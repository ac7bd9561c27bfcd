// The SQL that differs between SQLite and PostgreSQL in migrations and queries (column types,
// auto ids, locking reads, constraint errors, deadlock retries) is decided here; the rest of
// src/platform/db/ holds the other differences (docs/postgres.md lists them).
import { type ColumnDataType, type Kysely, PostgresAdapter, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely'

export type DbKind = 'sqlite' | 'postgres'

/** Which engine runs behind `db` (a transaction reports the engine of its database). */
export const kindOf = (db: Kysely<any>): DbKind => (db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite')

export const isPostgres = (db: Kysely<any>): boolean => kindOf(db) === 'postgres'

/**
 * Column types whose name differs. SQLite's `integer` is 64-bit, PostgreSQL's 32-bit: columns
 * holding epoch milliseconds are `bigint` there. PostgreSQL's `real` is 4 bytes: money and
 * latencies are `double precision` there.
 */
export function columnTypes(db: Kysely<any>): { ms: ColumnDataType; real: ColumnDataType } {
  return isPostgres(db) ? { ms: 'bigint', real: 'double precision' } : { ms: 'integer', real: 'real' }
}

/**
 * An integer primary key the database numbers: SQLite's `integer primary key autoincrement`,
 * PostgreSQL's identity column. Use as `.addColumn(name, type, autoId(db))` with `type` from `autoIdType`.
 */
export const autoIdType = (db: Kysely<any>): ColumnDataType => (isPostgres(db) ? 'bigint' : 'integer')
export const autoId = (db: Kysely<any>) => (c: any) =>
  isPostgres(db) ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()

/**
 * Appended to the inner SELECT of a claim (`UPDATE ... WHERE id IN (SELECT ... LIMIT n)`). On
 * PostgreSQL concurrent claimers skip each other's rows instead of taking the same ones; SQLite
 * has a single writer, so its claim statement is already atomic.
 */
export const skipLocked = (db: Kysely<any>): RawBuilder<unknown> => (isPostgres(db) ? sql`FOR UPDATE SKIP LOCKED` : sql``)

/** The database's own full-text search: SQLite's FTS5 (BM25) or PostgreSQL's tsvector (ts_rank). */
export const fullTextSearch = (db: Kysely<any>): 'fts5' | 'tsvector' => (isPostgres(db) ? 'tsvector' : 'fts5')

/** Refreshes the query planner's statistics (the call listing picks its index by them). */
export async function refreshPlannerStats(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`ANALYZE calls`.execute(db)
    return
  }
  await sql`PRAGMA analysis_limit = 1000`.execute(db)
  await sql`PRAGMA optimize = 0x10002`.execute(db)
}

const codeOf = (err: unknown): string => String((err as { code?: unknown } | null)?.code ?? '')

/** A unique, foreign-key, check or not-null constraint refused the write (either engine). */
export const isConstraintViolation = (err: unknown): boolean => {
  const code = codeOf(err)
  return code.startsWith('SQLITE_CONSTRAINT') || /^23\d{3}$/.test(code)
}

/**
 * PostgreSQL refused a text value SQLite would have stored: it holds U+0000 (22021) or a
 * character the database encoding lacks (22P05). The HTTP layer answers 400.
 */
export const isUnstorableText = (err: unknown): boolean => ['22021', '22P05'].includes(codeOf(err))

/**
 * True when text holding U+0000 cannot be stored (PostgreSQL; SQLite stores it). The HTTP layer
 * then refuses URLs holding `%00` up front, before a streamed answer has begun.
 */
export const refusesNulText = (db: Kysely<any>): boolean => isPostgres(db)

/**
 * How long a row cached in memory may be served without asking again. Forever where this process
 * is the database's one writer (SQLite, under the DATA_DIR lock), whose writes drop the entry;
 * `sharedMs` where other nodes write it too (PostgreSQL), in case their notification was missed.
 */
export const cacheLifetimeMs = (db: Kysely<any>, sharedMs: number): number => (isPostgres(db) ? sharedMs : Number.POSITIVE_INFINITY)

/**
 * Locks the selected rows until the transaction ends on PostgreSQL (SELECT ... FOR UPDATE), so
 * read-then-write steps of two nodes take turns. SQLite's write transaction already excludes others.
 */
export function lockedForUpdate<QB extends SelectQueryBuilder<any, any, any>>(db: Kysely<any>, qb: QB): QB {
  return isPostgres(db) ? (qb.forUpdate() as QB) : qb
}

/**
 * Runs `work` again when PostgreSQL ended it as one side of a deadlock (40P01) or a
 * serialization failure (40001), as its manual advises: the other side has committed by then.
 * A cascading delete of a call meets the background workers' row locks in the other order.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await work()
    } catch (err) {
      if (i >= attempts || !['40P01', '40001'].includes(codeOf(err))) throw err
    }
  }
}
