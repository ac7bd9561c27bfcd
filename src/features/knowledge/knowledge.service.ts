// Knowledge bases as the API sees them: workspace limits, uploads turned into passages and indexed
// incrementally, re-indexing, and search with what an agent would say for each result.
import { createHash } from 'node:crypto'
import { type Db, finishPage, pageLimit, type PageRequest, yieldTurn } from '../../platform/db/index.ts'
import { invalidField, notFound } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import { uploadedText, type UploadText } from './document-text.ts'
import type { KnowledgeBase, KnowledgeDocument } from './knowledge.model.ts'
import * as repo from './knowledge.repository.ts'
import type { KnowledgeBaseTable, KnowledgeDocumentTable } from './knowledge.table.ts'
import { dropFtsTables, ensureFtsTable } from './search/fts5-tables.ts'
import { isEnglish, searchBases } from './search/index.ts'
import { type PreparedChunk, prepareOffLoop } from './indexing/index.ts'
import { answerKind, type Chunk, type DocumentFormat, formatOf, spokenAnswer } from './text/index.ts'

export interface KnowledgeLimits {
  KNOWLEDGE_MAX_DOCUMENT_BYTES: number
  KNOWLEDGE_MAX_DOCUMENTS: number
  KNOWLEDGE_MAX_WORKSPACE_BYTES: number
  KNOWLEDGE_MAX_BASES: number
  KNOWLEDGE_MAX_DOCUMENT_PASSAGES: number
}

export const toBase = (r: KnowledgeBaseTable): KnowledgeBase => ({
  id: r.id, workspaceId: r.workspace_id, name: r.name, description: r.description, language: r.language, createdAt: r.created_at, updatedAt: r.updated_at,
})

export const toDocument = (r: repo.DocumentRow): KnowledgeDocument => ({
  id: r.id, knowledgeBaseId: r.knowledge_base_id, name: r.name, format: r.format as DocumentFormat, title: r.title, bytes: r.bytes, contentHash: r.content_hash,
  passages: r.chunk_count, createdAt: r.created_at, updatedAt: r.updated_at,
})

export async function createBase(db: Db, workspaceId: string, body: { name: string; description?: string | null; language?: string }, limits: KnowledgeLimits) {
  if ((await repo.countBases(db, workspaceId)) >= limits.KNOWLEDGE_MAX_BASES) {
    throw invalidField('name', `the workspace has ${limits.KNOWLEDGE_MAX_BASES} knowledge bases, the most it may have (KNOWLEDGE_MAX_BASES); delete one first`)
  }
  const now = nowIso()
  const row = await repo.insertBase(db, { id: newId('kb'), workspace_id: workspaceId, name: body.name.trim(), description: body.description ?? null, language: body.language ?? 'en', created_at: now, updated_at: now })
  // a block a deleted base left may still have its tables
  await dropFtsTables(db, row.passage_block)
  await ensureFtsTable(db, row.passage_block, isEnglish(row.language))
  return toBase(row)
}

export async function getBaseRow(db: Db, workspaceId: string, id: string): Promise<KnowledgeBaseTable> {
  const row = await repo.findBase(db, workspaceId, id)
  if (!row) throw notFound('knowledge base')
  return row
}

export async function listBases(db: Db, workspaceId: string, page: PageRequest) {
  const { items, nextCursor } = finishPage(await repo.listBases(db, workspaceId, page), pageLimit(page), (r) => [r.created_at, r.id])
  return { knowledgeBases: items.map(toBase), nextCursor }
}

/** A new language changes how every passage is stemmed, so the base is re-indexed with it. */
export async function updateBase(db: Db, workspaceId: string, id: string, body: { name?: string; description?: string | null; language?: string }, limits: Pick<KnowledgeLimits, 'KNOWLEDGE_MAX_DOCUMENT_PASSAGES'>) {
  const current = await getBaseRow(db, workspaceId, id)
  const row = { ...current, ...(body.name !== undefined ? { name: body.name.trim() } : {}), ...(body.description !== undefined ? { description: body.description } : {}), ...(body.language !== undefined ? { language: body.language } : {}), updated_at: nowIso() }
  await repo.updateBase(db, row)
  if (isEnglish(row.language) !== isEnglish(current.language)) {
    await ensureFtsTable(db, row.passage_block, isEnglish(row.language))
    await reindexRows(db, row, limits)
  }
  return toBase(row)
}

/** What deleting a base asks of the agents feature (wired by features/wiring.ts). */
export interface KnowledgeHooks {
  unlinkBase(workspaceId: string, baseId: string): Promise<unknown>
}

/** Deletes the base with its documents, and takes it out of the agents that linked it, together; passages go in batches with turns between. */
export async function deleteBase(db: Db, workspaceId: string, id: string, hooks: (db: Db) => KnowledgeHooks): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const base = await repo.findBase(tx, workspaceId, id)
    if (!base) throw notFound('knowledge base')
    // passages a batch at a time: a cascade of a hundred thousand rows would be one long statement
    for (const documentId of await repo.documentIdsOf(tx, id)) await repo.deleteChunksOf(tx, documentId, base.passage_block)
    await repo.deleteBase(tx, workspaceId, id)
    await dropFtsTables(tx, base.passage_block)
    await hooks(tx).unlinkBase(workspaceId, id)
  })
}

/**
 * Uploads a document, or replaces the one of the same name; only changed passages are re-indexed.
 * The passages are made off the event loop (indexing/), and written in batches with turns between.
 */
export async function uploadDocument(db: Db, workspaceId: string, baseId: string, body: UploadText & { name: string; format?: DocumentFormat; title?: string }, limits: KnowledgeLimits) {
  const { text, bytes } = uploadedText(body, limits.KNOWLEDGE_MAX_DOCUMENT_BYTES)
  const format = body.format ?? formatOf(body.name) ?? 'text'
  const english = isEnglish((await getBaseRow(db, workspaceId, baseId)).language)
  const path = body.content !== undefined ? 'content' : 'contentBase64'
  const prepared = await prepareOffLoop({ format, text, title: body.title, name: body.name, english, maxPassages: limits.KNOWLEDGE_MAX_DOCUMENT_PASSAGES, path })
  const { title, chunks } = prepared
  const contentHash = createHash('sha256').update(text).digest('base64url')
  return db.transaction().execute(async (tx) => {
    const base = await getBaseRow(tx, workspaceId, baseId)
    const existing = await repo.findDocumentByName(tx, base.id, body.name)
    const usage = await repo.workspaceUsage(tx, workspaceId, existing?.id)
    if (!existing && usage.documents >= limits.KNOWLEDGE_MAX_DOCUMENTS) {
      throw invalidField('name', `the workspace holds ${usage.documents} documents, the most it may (KNOWLEDGE_MAX_DOCUMENTS); delete some first`)
    }
    if (usage.bytes + bytes > limits.KNOWLEDGE_MAX_WORKSPACE_BYTES) {
      throw invalidField('content', `the workspace's documents would hold ${usage.bytes + bytes} bytes of text, more than KNOWLEDGE_MAX_WORKSPACE_BYTES (${limits.KNOWLEDGE_MAX_WORKSPACE_BYTES})`)
    }
    const now = nowIso()
    const row: KnowledgeDocumentTable = {
      id: existing?.id ?? newId('kdoc'), knowledge_base_id: base.id, workspace_id: workspaceId, name: body.name, format, title, bytes, content: text,
      content_hash: contentHash, chunk_count: chunks.length, created_at: existing?.created_at ?? now, updated_at: now,
    }
    if (existing) await repo.updateDocument(tx, row)
    else await repo.insertDocument(tx, row)
    // the base's language changed while the passages were made: their sound keys are the other stemming's
    const index = await repo.syncChunks(tx, row.id, base, isEnglish(base.language), isEnglish(base.language) === english ? chunks : chunks.map(withoutSounds))
    return { document: toDocument(row), index, replaced: existing !== undefined }
  })
}

const withoutSounds = (c: PreparedChunk): Chunk => ({ position: c.position, title: c.title, section: c.section, body: c.body, answer: c.answer, hash: c.hash })

/**
 * Each document in a transaction of its own, with a turn for other requests between them: a base
 * of a hundred megabytes must not hold the event loop (or the write lock) for all of it. A
 * document's passages are made off the event loop; a document deleted meanwhile is skipped.
 */
async function reindexRows(db: Db, base: KnowledgeBaseTable, limits: Pick<KnowledgeLimits, 'KNOWLEDGE_MAX_DOCUMENT_PASSAGES'>) {
  const total = { documents: 0, added: 0, removed: 0, kept: 0 }
  const english = isEnglish(base.language)
  for (const id of await repo.documentIdsOf(db, base.id)) {
    await yieldTurn()
    const d = await repo.findDocument(db, base.workspace_id, base.id, id)
    if (!d) continue
    // a document stored before a limit was lowered keeps the passages it has
    const prepared = await prepareOffLoop({ format: d.format as DocumentFormat, text: d.content, title: d.title, name: d.name, english, maxPassages: Math.max(limits.KNOWLEDGE_MAX_DOCUMENT_PASSAGES, d.chunk_count), path: 'content' })
    const change = await db.transaction().execute(async (tx) => {
      const now = await repo.findDocument(tx, base.workspace_id, base.id, id)
      if (!now || now.content_hash !== d.content_hash) return undefined
      const synced = await repo.syncChunks(tx, d.id, base, english, prepared.chunks)
      if (prepared.chunks.length !== d.chunk_count) await repo.updateDocument(tx, { ...d, chunk_count: prepared.chunks.length })
      return synced
    })
    if (!change) continue
    total.documents++
    total.added += change.added
    total.removed += change.removed
    total.kept += change.kept
  }
  return total
}

/** Re-derives every passage of the base from the stored documents (after an upgrade of the chunker, say); unchanged passages stay as they are. */
export const reindexBase = async (db: Db, workspaceId: string, baseId: string, limits: Pick<KnowledgeLimits, 'KNOWLEDGE_MAX_DOCUMENT_PASSAGES'>) =>
  reindexRows(db, await getBaseRow(db, workspaceId, baseId), limits)

export async function listDocuments(db: Db, workspaceId: string, baseId: string, page: PageRequest) {
  await getBaseRow(db, workspaceId, baseId)
  const { items, nextCursor } = finishPage(await repo.listDocuments(db, workspaceId, baseId, page), pageLimit(page), (r) => [r.created_at, r.id])
  return { documents: items.map(toDocument), nextCursor }
}

export async function getDocument(db: Db, workspaceId: string, baseId: string, id: string) {
  const row = await repo.findDocument(db, workspaceId, baseId, id)
  if (!row) throw notFound('document')
  const passages = (await repo.chunksOf(db, row.id)).map((c) => ({ id: Number(c.id), position: c.position, title: c.title, section: c.section, text: c.body, answer: c.answer }))
  return { document: toDocument(row), passages }
}

/** The passages go a batch at a time, with turns for other work between batches, then the document. */
export async function deleteDocument(db: Db, workspaceId: string, baseId: string, id: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const base = await repo.findBase(tx, workspaceId, baseId)
    if (!base || !(await repo.findDocument(tx, workspaceId, baseId, id))) throw notFound('document')
    await repo.deleteChunksOf(tx, id, base.passage_block)
    await repo.deleteDocument(tx, workspaceId, baseId, id)
  })
}

export interface KnowledgeResult {
  passageId: number
  documentId: string
  documentName: string
  title: string
  section: string
  text: string
  answer: string | null
  score: number
  spoken: string
}

/** The best passages of the workspace's `baseIds` for what a caller said; bases of other workspaces are never searched. */
export async function searchKnowledge(db: Db, workspaceId: string, baseIds: string[], query: string, limit = 5, maxSpokenChars?: number): Promise<KnowledgeResult[]> {
  const bases = await repo.findBases(db, workspaceId, baseIds)
  if (!bases.length) return []
  const { hits, words } = await searchBases(db, bases.map((b) => ({ id: b.id, language: b.language, block: b.passage_block })), query, limit)
  const kind = bases.some((b) => isEnglish(b.language)) ? answerKind(query) : 'other'
  return hits.map((h) => ({
    passageId: h.chunkId, documentId: h.documentId, documentName: h.documentName, title: h.title, section: h.section, text: h.body, answer: h.answer, score: h.score,
    spoken: spokenAnswer(h.answer ?? h.body, words, maxSpokenChars, kind),
  }))
}
