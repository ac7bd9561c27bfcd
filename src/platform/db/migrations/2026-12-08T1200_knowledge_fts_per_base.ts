import { type Kysely, sql } from 'kysely'
import { isPostgres } from '../dialect.ts'

// Landed migrations never change; add a new timestamped file instead.
// SQLite's knowledge index becomes an FTS5 table per base (issue 45): BM25's statistics were the
// whole table's, every workspace's, so one tenant's words moved another's ranks, a yes/no test for
// any word another tenant holds. knowledge_fts_<block>_en (porter) and knowledge_fts_<block>_any
// (unicode61) are written by the application, which the triggers into the shared tables were.
// PostgreSQL's ts_rank reads no other passage: nothing changes there.
const TOKENIZER = { en: 'porter unicode61 remove_diacritics 2', any: 'unicode61 remove_diacritics 2' } as const
const SHARED = { en: 'knowledge_fts_en', any: 'knowledge_fts_any' } as const

const perBase = (block: number, kind: 'en' | 'any') => `knowledge_fts_${Math.trunc(block)}_${kind}`

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return
  const bases = await sql<{ id: string; block: number; language: string }>`SELECT id, passage_block AS block, language FROM knowledge_bases`.execute(db)
  for (const b of bases.rows) {
    const english = /^en(-|$)/i.test(b.language)
    for (const kind of ['en', 'any'] as const) {
      const has = await sql<{ n: number }>`SELECT count(*) AS n FROM knowledge_chunks WHERE knowledge_base_id = ${b.id} AND english = ${kind === 'en' ? 1 : 0}`.execute(db)
      if (!Number(has.rows[0]?.n) && english !== (kind === 'en')) continue
      const table = perBase(Number(b.block), kind)
      await sql.raw(`CREATE VIRTUAL TABLE ${table} USING fts5(title, section, body, sounds, tokenize = '${TOKENIZER[kind]}')`).execute(db)
      await sql`INSERT INTO ${sql.raw(table)} (rowid, title, section, body, sounds)
        SELECT id, title, section, body, sounds FROM knowledge_chunks WHERE knowledge_base_id = ${b.id} AND english = ${kind === 'en' ? 1 : 0}`.execute(db)
    }
  }
  for (const kind of ['en', 'any'] as const) {
    await sql.raw(`DROP TRIGGER ${SHARED[kind]}_insert`).execute(db)
    await sql.raw(`DROP TRIGGER ${SHARED[kind]}_delete`).execute(db)
    await sql.raw(`DROP TABLE ${SHARED[kind]}`).execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return
  for (const kind of ['en', 'any'] as const) {
    const english = kind === 'en' ? 1 : 0
    await sql.raw(`CREATE VIRTUAL TABLE ${SHARED[kind]} USING fts5(title, section, body, sounds, tokenize = '${TOKENIZER[kind]}')`).execute(db)
    await sql.raw(`CREATE TRIGGER ${SHARED[kind]}_insert AFTER INSERT ON knowledge_chunks WHEN new.english = ${english} BEGIN
      INSERT INTO ${SHARED[kind]} (rowid, title, section, body, sounds) VALUES (new.id, new.title, new.section, new.body, new.sounds); END`).execute(db)
    await sql.raw(`CREATE TRIGGER ${SHARED[kind]}_delete AFTER DELETE ON knowledge_chunks WHEN old.english = ${english} BEGIN
      DELETE FROM ${SHARED[kind]} WHERE rowid = old.id; END`).execute(db)
    await sql`INSERT INTO ${sql.raw(SHARED[kind])} (rowid, title, section, body, sounds) SELECT id, title, section, body, sounds FROM knowledge_chunks WHERE english = ${english}`.execute(db)
  }
  const tables = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' AND name GLOB 'knowledge_fts_[0-9]*'`.execute(db)
  for (const t of tables.rows) await sql.raw(`DROP TABLE ${t.name}`).execute(db)
}
