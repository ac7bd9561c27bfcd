import type { CompiledQuery, Compilable } from 'kysely'
import type { Db } from './database.ts'

/**
 * A query on a hot path, built and compiled once per database and then run with new parameter
 * values. Only for queries whose compiled parameters are exactly the arguments, in order
 * (simple `where col = value` lookups); that is checked on the first compile.
 */
export function preparedQuery<Row, Args extends unknown[]>(build: (db: Db, ...args: Args) => Compilable<Row>) {
  const compiled = new WeakMap<Db, CompiledQuery<Row>>()
  return async (db: Db, ...args: Args): Promise<Row[]> => {
    let query = compiled.get(db)
    if (!query) {
      query = build(db, ...args).compile()
      const params = query.parameters
      if (params.length !== args.length || params.some((p, i) => p !== args[i])) {
        throw new Error(`preparedQuery: parameters of "${query.sql}" are not its arguments in order`)
      }
      compiled.set(db, query)
    }
    const result = await db.executeQuery<Row>({ ...query, parameters: args })
    return result.rows
  }
}
