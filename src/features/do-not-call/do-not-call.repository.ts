import { sql } from 'kysely'
import { type Db, forEachChunk } from '../../platform/db/index.ts'

export interface DncEntry {
  number: string
  reason: string | null
  source: string
}

const CHUNK = 400

/** Adds numbers; those already listed keep their first reason. Returns how many were new. */
export async function addNumbers(db: Db, workspaceId: string, entries: DncEntry[], createdAt: string): Promise<number> {
  let added = 0
  await forEachChunk(entries, CHUNK, async (chunk) => {
    const rows = chunk.map((e) => ({ workspace_id: workspaceId, number: e.number, reason: e.reason, source: e.source, created_at: createdAt }))
    const r = await db.insertInto('do_not_call').values(rows).onConflict((oc) => oc.doNothing()).executeTakeFirst()
    added += Number(r.numInsertedOrUpdatedRows ?? 0n)
  })
  return added
}

export const removeNumber = async (db: Db, workspaceId: string, number: string) =>
  Number((await db.deleteFrom('do_not_call').where('workspace_id', '=', workspaceId).where('number', '=', number).executeTakeFirst()).numDeletedRows)

export const isListed = async (db: Db, workspaceId: string, number: string) =>
  (await db.selectFrom('do_not_call').select('number').where('workspace_id', '=', workspaceId).where('number', '=', number).executeTakeFirst()) !== undefined

/** Which of `numbers` are listed. */
export async function listedAmong(db: Db, workspaceId: string, numbers: string[]): Promise<Set<string>> {
  const out = new Set<string>()
  await forEachChunk(numbers, CHUNK, async (chunk) => {
    const rows = await db.selectFrom('do_not_call').select('number').where('workspace_id', '=', workspaceId).where('number', 'in', chunk).execute()
    for (const r of rows) out.add(r.number)
  })
  return out
}

/** Newest first, `limit + 1` rows after the (createdAt, number) cursor. */
export function listNumbers(db: Db, workspaceId: string, q: { limit: number; after?: [string, string]; number?: string }) {
  let qb = db.selectFrom('do_not_call').selectAll().where('workspace_id', '=', workspaceId)
  if (q.number) qb = qb.where('number', '=', q.number)
  if (q.after) qb = qb.where(sql<boolean>`(created_at, number) < (${q.after[0]}, ${q.after[1]})`)
  return qb.orderBy('created_at', 'desc').orderBy('number', 'desc').limit(q.limit + 1).execute()
}
