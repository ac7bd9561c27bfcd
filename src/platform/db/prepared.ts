import type { SQLQueryBindings, Statement } from 'bun:sqlite'
import type { CompiledQuery, Compilable } from 'kysely'
import { readerOf } from './client.ts'
import type { Db } from './database.ts'
import { isPostgres } from './dialect.ts'

/**
 * What a hot-path read gives (`preparedRead`): the row itself on SQLite, read synchronously on
 * the read-only connection without Kysely's executor (1.4 us instead of 4.3 us), a promise of it
 * on PostgreSQL. One function serves both engines, and its callers await it.
 */
export type Read<T> = T | Promise<T>

/** Applies `f` to the value read: at once when it is there, else when the promise settles. */
export const mapRead = <T, U>(value: Read<T>, f: (v: T) => U): Read<U> => (value instanceof Promise ? value.then(f) : f(value))

/** Compiles once per database; checks that the compiled parameters are exactly the arguments, in order. */
function compiler<Row, Args extends unknown[]>(build: (db: Db, ...args: Args) => Compilable<Row>) {
  const compiled = new WeakMap<Db, CompiledQuery<Row>>()
  return (db: Db, args: Args): CompiledQuery<Row> => {
    let query = compiled.get(db)
    if (!query) {
      query = build(db, ...args).compile()
      const params = query.parameters
      if (params.length !== args.length || params.some((p, i) => p !== args[i])) {
        throw new Error(`preparedQuery: parameters of "${query.sql}" are not its arguments in order`)
      }
      compiled.set(db, query)
    }
    return query
  }
}

/**
 * A query on a hot path, built and compiled once per database and then run with new parameter
 * values. Only for queries whose compiled parameters are exactly the arguments, in order
 * (simple `where col = value` lookups); that is checked on the first compile.
 */
export function preparedQuery<Row, Args extends unknown[]>(build: (db: Db, ...args: Args) => Compilable<Row>) {
  const compile = compiler(build)
  return async (db: Db, ...args: Args): Promise<Row[]> => {
    const query = compile(db, args)
    const result = await db.executeQuery<Row>({ ...query, parameters: args })
    return result.rows
  }
}

/**
 * Like preparedQuery, but returns the first row only, read synchronously as a bun:sqlite prepared statement on the database's
 * read-only connection: no Kysely executor, no promise. It sees the last committed state, so it
 * is for reads outside transactions only; a transaction or an in-memory database has no reader
 * and gets an error. On PostgreSQL there is no synchronous read: the row comes as a promise.
 */
export function preparedRead<Row, Args extends unknown[]>(build: (db: Db, ...args: Args) => Compilable<Row>) {
  const compile = compiler(build)
  const statements = new WeakMap<Db, Statement>()
  return (db: Db, ...args: Args): Read<Row | undefined> => {
    let statement = statements.get(db)
    if (!statement) {
      if (isPostgres(db)) return db.executeQuery<Row>({ ...compile(db, args), parameters: args }).then((r) => r.rows[0])
      const reader = readerOf(db)
      if (!reader) throw new Error('preparedRead: this database has no read-only connection (a transaction or :memory:)')
      statement = reader.prepare(compile(db, args).sql)
      statements.set(db, statement)
    }
    return (statement.get(...(args as unknown as SQLQueryBindings[])) ?? undefined) as Row | undefined
  }
}
