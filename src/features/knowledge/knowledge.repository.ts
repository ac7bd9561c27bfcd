// Knowledge bases, their documents and passages in the database. Every read and write names the
// workspace, so a base of another workspace is never found.
import { sql } from 'kysely'
import { type Db, forEachChunk, isConstraintViolation, keysetPage, type PageRequest, yieldTurn } from '../../platform/db/index.ts'
import { ensureFtsTable, indexPassages, unindexPassages } from './search/fts5-tables.ts'
import { type Chunk, soundsOf } from './text/index.ts'
import type { KnowledgeBaseTable, KnowledgeDocumentTable } from './knowledge.table.ts'

/** The span of passage ids of one base: its block times this, plus the passage's number. */
export const PASSAGE_BLOCK = 2 ** 32

/** Inserts the base with the next free passage block (a race for the same block retries with the next). */
export async function insertBase(db: Db, row: Omit<KnowledgeBaseTable, 'passage_block' | 'next_passage'>): Promise<KnowledgeBaseTable> {
  for (let attempt = 0; ; attempt++) {
    const top = await db.selectFrom('knowledge_bases').select((eb) => eb.fn.max('passage_block').as('b')).executeTakeFirst()
    const full: KnowledgeBaseTable = { ...row, passage_block: Number(top?.b ?? 0) + 1, next_passage: 0 }
    try {
      await db.insertInto('knowledge_bases').values(full).execute()
      return full
    } catch (err) {
      if (!isConstraintViolation(err) || attempt >= 5) throw err
    }
  }
}

export const findBase = (db: Db, workspaceId: string, id: string) =>
  db.selectFrom('knowledge_bases').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst()

export const findBases = async (db: Db, workspaceId: string, ids: string[]) =>
  ids.length ? db.selectFrom('knowledge_bases').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute() : []

export const listBases = (db: Db, workspaceId: string, page: PageRequest) =>
  keysetPage(db.selectFrom('knowledge_bases').selectAll().where('workspace_id', '=', workspaceId), 'created_at', 'id', page).execute()

export const countBases = async (db: Db, workspaceId: string) =>
  Number((await db.selectFrom('knowledge_bases').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow()).n)

export const updateBase = (db: Db, row: KnowledgeBaseTable) =>
  db.updateTable('knowledge_bases').set({ name: row.name, description: row.description, language: row.language, updated_at: row.updated_at }).where('id', '=', row.id).where('workspace_id', '=', row.workspace_id).execute()

export const deleteBase = async (db: Db, workspaceId: string, id: string) =>
  Number((await db.deleteFrom('knowledge_bases').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

/** Documents and UTF-8 bytes the workspace holds, leaving out `exceptDocumentId` (being replaced). */
export async function workspaceUsage(db: Db, workspaceId: string, exceptDocumentId?: string): Promise<{ documents: number; bytes: number }> {
  let q = db.selectFrom('knowledge_documents').select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum('bytes').as('bytes')]).where('workspace_id', '=', workspaceId)
  if (exceptDocumentId) q = q.where('id', '!=', exceptDocumentId)
  const r = await q.executeTakeFirstOrThrow()
  return { documents: Number(r.n), bytes: Number(r.bytes ?? 0) }
}

const DOCUMENT_COLUMNS = ['id', 'knowledge_base_id', 'workspace_id', 'name', 'format', 'title', 'bytes', 'content_hash', 'chunk_count', 'created_at', 'updated_at'] as const
export type DocumentRow = Omit<KnowledgeDocumentTable, 'content'>

export const listDocuments = (db: Db, workspaceId: string, baseId: string, page: PageRequest) =>
  keysetPage(db.selectFrom('knowledge_documents').select(DOCUMENT_COLUMNS).where('workspace_id', '=', workspaceId).where('knowledge_base_id', '=', baseId), 'created_at', 'id', page).execute()

export const findDocument = (db: Db, workspaceId: string, baseId: string, id: string) =>
  db.selectFrom('knowledge_documents').selectAll().where('workspace_id', '=', workspaceId).where('knowledge_base_id', '=', baseId).where('id', '=', id).executeTakeFirst()

export const findDocumentByName = (db: Db, baseId: string, name: string) =>
  db.selectFrom('knowledge_documents').selectAll().where('knowledge_base_id', '=', baseId).where('name', '=', name).executeTakeFirst()

export const documentIdsOf = async (db: Db, baseId: string) =>
  (await db.selectFrom('knowledge_documents').select('id').where('knowledge_base_id', '=', baseId).orderBy('created_at').execute()).map((r) => r.id)

export const deleteDocument = async (db: Db, workspaceId: string, baseId: string, id: string) =>
  Number((await db.deleteFrom('knowledge_documents').where('workspace_id', '=', workspaceId).where('knowledge_base_id', '=', baseId).where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0

export const insertDocument = (db: Db, row: KnowledgeDocumentTable) => db.insertInto('knowledge_documents').values(row).execute()

export const updateDocument = (db: Db, row: KnowledgeDocumentTable) =>
  db.updateTable('knowledge_documents').set({ format: row.format, title: row.title, bytes: row.bytes, content: row.content, content_hash: row.content_hash, chunk_count: row.chunk_count, updated_at: row.updated_at }).where('id', '=', row.id).execute()

export interface IndexChange {
  added: number
  removed: number
  kept: number
}

/** Passages written (or deleted, or moved) at once; the event loop gets a turn between batches (their sounds and FTS entries take time). */
const INSERT_CHUNK = 100
const MOVE_CHUNK = 500
const READ_CHUNK = 5000
const MATCH_CHUNK = 5000

/**
 * Makes the document's passages `chunks`, rewriting only what changed: passages whose hash (and
 * stemming) are already there keep their row and full-text entry, the others are deleted or added;
 * kept passages that moved get their new positions by one statement per batch.
 */
export async function syncChunks(db: Db, documentId: string, base: { id: string; passage_block: number }, english: boolean, chunks: (Chunk & { sounds?: string })[]): Promise<IndexChange> {
  const baseId = base.id
  const flag = english ? 1 : 0
  type Row = { id: number; hash: string; english: number; position: number }
  const existing: Row[] = []
  const page = (last: Row | undefined) => {
    let q = db.selectFrom('knowledge_chunks').select(['id', 'hash', 'english', 'position']).where('document_id', '=', documentId)
    if (last) q = q.where('position', '>', last.position)
    return q.orderBy('position').limit(READ_CHUNK).execute() as Promise<Row[]>
  }
  await forEachChunk(page, READ_CHUNK, (rows) => void existing.push(...rows))
  const byHash = new Map<string, { id: number; position: number }[]>()
  await forEachChunk(existing, MATCH_CHUNK, (part) => {
    for (const row of part) {
      if (row.english !== flag) continue
      const list = byHash.get(row.hash) ?? []
      list.push({ id: Number(row.id), position: row.position })
      byHash.set(row.hash, list)
    }
  })
  const keep = new Set<number>()
  const fresh: (Chunk & { sounds?: string })[] = []
  const moved: { id: number; position: number }[] = []
  await forEachChunk(chunks, MATCH_CHUNK, (part) => {
    for (const c of part) {
      const row = byHash.get(c.hash)?.shift()
      if (!row) fresh.push(c)
      else {
        keep.add(row.id)
        if (row.position !== c.position) moved.push({ id: row.id, position: c.position })
      }
    }
  })
  const gone = existing.map((r) => Number(r.id)).filter((id) => !keep.has(id))
  await forEachChunk(gone, INSERT_CHUNK, async (ids) => {
    await unindexPassages(db, base.passage_block, ids)
    await db.deleteFrom('knowledge_chunks').where('id', 'in', ids).execute()
  })
  await forEachChunk(moved, MOVE_CHUNK, async (part) => {
    const values = sql.join(part.map((m) => sql`(CAST(${m.id} AS bigint), CAST(${m.position} AS integer))`))
    await sql`UPDATE knowledge_chunks SET position = m.column2 FROM (VALUES ${values}) AS m WHERE knowledge_chunks.id = m.column1`.execute(db)
  })
  // new passages take the next numbers of the base's block
  let next = 0
  if (fresh.length) {
    const r = await db.updateTable('knowledge_bases').set((eb) => ({ next_passage: eb('next_passage', '+', fresh.length) })).where('id', '=', baseId).returning('next_passage').executeTakeFirstOrThrow()
    next = base.passage_block * PASSAGE_BLOCK + Number(r.next_passage) - fresh.length
    await ensureFtsTable(db, base.passage_block, english)
  }
  await forEachChunk(fresh, INSERT_CHUNK, async (part) => {
    const first = next
    const rows = part.map((c) => ({ id: next++, document_id: documentId, knowledge_base_id: baseId, position: c.position, title: c.title, section: c.section, body: c.body, answer: c.answer, hash: c.hash, english: flag, sounds: english ? (c.sounds ?? soundsOf(`${c.section} ${c.body}`)) : '' }))
    await db.insertInto('knowledge_chunks').values(rows).execute()
    await indexPassages(db, base.passage_block, english, first, next - 1)
  })
  return { added: fresh.length, removed: gone.length, kept: keep.size }
}

/** Deletes the document's passages, index entries first, a batch at a time (a turn for other work between batches). */
export async function deleteChunksOf(db: Db, documentId: string, block: number): Promise<void> {
  for (;;) {
    // the first ids left: the batch before is gone
    const ids = (await db.selectFrom('knowledge_chunks').select('id').where('document_id', '=', documentId).orderBy('position').limit(DELETE_CHUNK).execute()).map((r) => Number(r.id))
    if (!ids.length) return
    await unindexPassages(db, block, ids)
    await db.deleteFrom('knowledge_chunks').where('id', 'in', ids).execute()
    if (ids.length < DELETE_CHUNK) return
    await yieldTurn()
  }
}
const DELETE_CHUNK = 1000

export const chunksOf = (db: Db, documentId: string) =>
  db.selectFrom('knowledge_chunks').select(['id', 'position', 'title', 'section', 'body', 'answer']).where('document_id', '=', documentId).orderBy('position').execute()
