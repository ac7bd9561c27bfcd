// Keyset (cursor) pagination for repositories: newest first by (sort key, id), stable while
// rows are inserted between requests. The HTTP layer only adds the query schema.
import { type SelectQueryBuilder, sql } from 'kysely'
import { AppError } from '../errors.ts'

export type PageRequest = { limit?: number; cursor?: string }

/** A position in a newest-first listing: the sort timestamp and the id that breaks ties. */
export type Cursor = [sortKey: string, id: string]

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url')
}

export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (raw === undefined || raw === '') return undefined
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return [v[0], v[1]]
  } catch {}
  throw new AppError(400, 'bad_request', 'cursor is not valid', { fields: [{ path: 'cursor', message: 'not a cursor from this API' }] })
}

/**
 * Rows were fetched with `limit + 1`, ordered newest first by (sortKey, id); keyset paging keeps
 * pages correct while rows are inserted between requests.
 */
export function finishPage<R>(rows: R[], limit: number, keyOf: (r: R) => Cursor): { items: R[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null }
  const items = rows.slice(0, limit)
  return { items, nextCursor: encodeCursor(keyOf(items[items.length - 1] as R)) }
}

export const pageLimit = (q: PageRequest): number => q.limit ?? 50

/** Applies the keyset condition, newest-first order and `limit + 1` to a Kysely select. */
export function keysetPage<QB extends SelectQueryBuilder<any, any, any>>(
  qb: QB,
  sortColumn: string,
  idColumn: string,
  page: PageRequest,
): QB {
  const cursor = decodeCursor(page.cursor)
  let q = qb as SelectQueryBuilder<any, any, any>
  if (cursor) q = q.where(sql<boolean>`(${sql.ref(sortColumn)}, ${sql.ref(idColumn)}) < (${cursor[0]}, ${cursor[1]})`)
  return q.orderBy(sql.ref(sortColumn), 'desc').orderBy(sql.ref(idColumn), 'desc').limit(pageLimit(page) + 1) as QB
}
