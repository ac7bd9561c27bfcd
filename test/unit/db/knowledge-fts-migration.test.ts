// The migration that gave each knowledge base an FTS5 table of its own (issue 45): passages
// indexed in the shared tables before it are found in their base's table after it, by the same
// search, with no trace of another base; undone, the shared tables and their triggers come back.
import { afterAll, expect, test } from 'bun:test'
import { Migrator, sql } from 'kysely'
import { searchKnowledge } from '../../../src/features/knowledge/knowledge.service.ts'
import { type DbHandle, migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import { MIGRATIONS } from '../../../src/platform/db/migrate.ts'

const BEFORE = '2026-12-07T1900_contact_timezone'
const THIS = '2026-12-08T1200_knowledge_fts_per_base'
const at = '2026-12-01T22:20:00.000Z'
const opened: DbHandle[] = []
afterAll(async () => {
  for (const h of opened) await h.close()
})

const upTo = (name: string) => Object.fromEntries(Object.entries(MIGRATIONS).filter(([n]) => n <= name))

async function passagesBeforeTheMigration(h: DbHandle): Promise<void> {
  const { error } = await new Migrator({ db: h.db, provider: { getMigrations: async () => upTo(BEFORE) } }).migrateToLatest()
  expect(error).toBeUndefined()
  const db = h.db as any
  for (const [ws, kb, block, language, body] of [['wa', 'kb_a', 1, 'en', 'Parking is free on Sundays.'], ['wb', 'kb_b', 2, 'de', 'Parken ist sonntags frei.']] as const) {
    await db.insertInto('workspaces').values({ id: ws, name: ws, created_at: at, updated_at: at }).execute()
    await db.insertInto('knowledge_bases').values({ id: kb, workspace_id: ws, name: kb, description: null, language, passage_block: block, next_passage: 1, created_at: at, updated_at: at }).execute()
    await db.insertInto('knowledge_documents').values({ id: `d_${kb}`, knowledge_base_id: kb, workspace_id: ws, name: 'p.md', format: 'markdown', title: 'P', bytes: body.length, content: body, content_hash: 'h', chunk_count: 1, created_at: at, updated_at: at }).execute()
    // the trigger of the landed migration indexes it in the shared table
    await db.insertInto('knowledge_chunks').values({ id: block * 2 ** 32, document_id: `d_${kb}`, knowledge_base_id: kb, position: 0, title: 'P', section: 'Parking', body, answer: null, hash: 'x', english: language === 'en' ? 1 : 0, sounds: '' }).execute()
  }
}

const tables = (h: DbHandle) => (h.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'knowledge_fts_*' AND sql LIKE 'CREATE VIRTUAL%' ORDER BY name").all() as { name: string }[]).map((r) => r.name)

test('SQLite: passages indexed in the shared tables are searched in their base\'s own table after the migration, and back after undoing it', async () => {
  const h = openDatabase(':memory:')
  opened.push(h)
  await passagesBeforeTheMigration(h)
  expect(tables(h)).toEqual(['knowledge_fts_any', 'knowledge_fts_en'])
  expect(await migrateToLatest(h.db)).toContain(THIS)
  expect(tables(h)).toEqual(['knowledge_fts_1_en', 'knowledge_fts_2_any'])
  expect((await searchKnowledge(h.db, 'wa', ['kb_a'], 'parking sunday')).map((r) => r.text)).toEqual(['Parking is free on Sundays.'])
  expect((await searchKnowledge(h.db, 'wb', ['kb_b'], 'parken')).map((r) => r.text)).toEqual(['Parken ist sonntags frei.'])
  const rows = await sql<{ n: number }>`SELECT count(*) AS n FROM knowledge_fts_1_en`.execute(h.db)
  expect(Number(rows.rows[0]!.n)).toBe(1)
  const down = await new Migrator({ db: h.db, provider: { getMigrations: async () => MIGRATIONS } }).migrateTo(BEFORE)
  expect(down.error).toBeUndefined()
  expect(tables(h)).toEqual(['knowledge_fts_any', 'knowledge_fts_en'])
  const back = await sql<{ rowid: number }>`SELECT rowid FROM knowledge_fts_en WHERE knowledge_fts_en MATCH 'parking'`.execute(h.db)
  expect(back.rows.map((r) => Number(r.rowid))).toEqual([2 ** 32])
})
