// SQLite's full-text index of knowledge passages: an FTS5 table per base and stemming,
// knowledge_fts_<block>_en (porter) or knowledge_fts_<block>_any (unicode61). BM25 takes its
// statistics (passages, their average length, how many hold a term) from the whole table, so a
// table shared by tenants would let one tenant's text move another's ranks (issue 45); a table per
// base keeps them the base's own. The application writes and deletes entries (a trigger cannot
// name a table per base), always by sets of rowids. On PostgreSQL every function here does
// nothing: the tsvector column is kept by its trigger, and ts_rank reads no other passage.
import { sql } from 'kysely'
import { type Db, fullTextSearch } from '../../../platform/db/index.ts'

const TOKENIZER = (english: boolean) => (english ? 'porter unicode61 remove_diacritics 2' : 'unicode61 remove_diacritics 2')

/** The base's table for one stemming; the block is an integer the database gave, never text of a request. */
export function ftsTable(block: number, english: boolean) {
  if (!Number.isSafeInteger(block) || block < 0) throw new Error(`a passage block is a non-negative integer, not ${block}`)
  return sql.raw(`knowledge_fts_${block}_${english ? 'en' : 'any'}`)
}

const fts5 = (db: Db) => fullTextSearch(db) === 'fts5'

/** Creates the base's table if it has none yet (a base whose language changed gets the other stemming's). */
export async function ensureFtsTable(db: Db, block: number, english: boolean): Promise<void> {
  if (!fts5(db)) return
  await sql`CREATE VIRTUAL TABLE IF NOT EXISTS ${ftsTable(block, english)} USING fts5(title, section, body, sounds, tokenize = ${sql.raw(`'${TOKENIZER(english)}'`)})`.execute(db)
}

/** Drops both tables of the block: a deleted base, or a new base given a block a deleted base left. */
export async function dropFtsTables(db: Db, block: number): Promise<void> {
  if (!fts5(db)) return
  for (const english of [true, false]) await sql`DROP TABLE IF EXISTS ${ftsTable(block, english)}`.execute(db)
}

/** Indexes the passages with ids first..last (one batch of a document, numbered in a run) from knowledge_chunks. */
export async function indexPassages(db: Db, block: number, english: boolean, first: number, last: number): Promise<void> {
  if (!fts5(db) || last < first) return
  await sql`INSERT INTO ${ftsTable(block, english)} (rowid, title, section, body, sounds)
    SELECT id, title, section, body, sounds FROM knowledge_chunks WHERE id BETWEEN ${first} AND ${last}`.execute(db)
}

/** Takes passages out of the index, before their rows are deleted. */
export async function unindexPassages(db: Db, block: number, ids: number[]): Promise<void> {
  if (!fts5(db) || !ids.length) return
  for (const english of [true, false]) {
    if (await exists(db, block, english)) await sql`DELETE FROM ${ftsTable(block, english)} WHERE rowid IN (${sql.join(ids)})`.execute(db)
  }
}

async function exists(db: Db, block: number, english: boolean): Promise<boolean> {
  const name = `knowledge_fts_${block}_${english ? 'en' : 'any'}`
  const r = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ${name}`.execute(db)
  return Number(r.rows[0]?.n ?? 0) > 0
}
