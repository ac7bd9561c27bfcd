import { type Kysely, sql } from 'kysely'
import { autoId, autoIdType, isPostgres } from '../dialect.ts'

// Landed migrations never change; add a new timestamped file instead.
// Knowledge bases (issue 29): documents and their passages, searched with the database's own full
// text search. SQLite keeps two FTS5 tables, English stemmed by porter and other languages by
// unicode61 alone, filled by triggers (also when a cascade deletes passages). A base's passages
// have ids in a block of their own (passage_block * 2^32 + n): a search keeps to its base by a
// rowid range, which FTS5 seeks to (a base-id column to AND with costs a scan of the base). PostgreSQL
// keeps a weighted tsvector per passage (section A, title B, body C, sound keys D), set by a
// trigger. The sound keys of an English passage's words (knowledge/text/sounds.ts) let a caller's
// misrecognised words find it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('knowledge_bases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('en'))
    .addColumn('passage_block', 'integer', (c) => c.notNull().unique())
    .addColumn('next_passage', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('knowledge_bases_workspace').on('knowledge_bases').columns(['workspace_id', 'created_at', 'id']).execute()
  await db.schema
    .createTable('knowledge_documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('knowledge_base_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('chunk_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('knowledge_documents_name').on('knowledge_documents').columns(['knowledge_base_id', 'name']).unique().execute()
  await db.schema.createIndex('knowledge_documents_workspace').on('knowledge_documents').columns(['workspace_id']).execute()
  await db.schema
    .createTable('knowledge_chunks')
    .addColumn('id', autoIdType(db), autoId(db))
    .addColumn('document_id', 'text', (c) => c.notNull().references('knowledge_documents.id').onDelete('cascade'))
    .addColumn('knowledge_base_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('section', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('answer', 'text')
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('english', 'integer', (c) => c.notNull())
    .addColumn('sounds', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('knowledge_chunks_document').on('knowledge_chunks').columns(['document_id', 'position']).execute()
  await db.schema.createIndex('knowledge_chunks_base').on('knowledge_chunks').columns(['knowledge_base_id', 'english']).execute()
  if (isPostgres(db)) {
    await sql`ALTER TABLE knowledge_chunks ADD COLUMN tsv tsvector NOT NULL DEFAULT ''::tsvector`.execute(db)
    await sql`CREATE INDEX knowledge_chunks_tsv ON knowledge_chunks USING gin (tsv)`.execute(db)
    await sql`CREATE FUNCTION knowledge_chunks_tsv() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE cfg regconfig := CASE WHEN NEW.english = 1 THEN 'english'::regconfig ELSE 'simple'::regconfig END;
      BEGIN
        NEW.tsv := setweight(to_tsvector(cfg, NEW.section), 'A') || setweight(to_tsvector(cfg, NEW.title), 'B') || setweight(to_tsvector(cfg, NEW.body), 'C')
          || setweight(to_tsvector('simple'::regconfig, NEW.sounds), 'D');
        RETURN NEW;
      END $$`.execute(db)
    await sql`CREATE TRIGGER knowledge_chunks_tsv BEFORE INSERT OR UPDATE OF title, section, body, english, sounds ON knowledge_chunks FOR EACH ROW EXECUTE FUNCTION knowledge_chunks_tsv()`.execute(db)
    return
  }
  for (const [table, tokenizer, english] of [['knowledge_fts_en', 'porter unicode61 remove_diacritics 2', 1], ['knowledge_fts_any', 'unicode61 remove_diacritics 2', 0]] as const) {
    await sql.raw(`CREATE VIRTUAL TABLE ${table} USING fts5(title, section, body, sounds, tokenize = '${tokenizer}')`).execute(db)
    await sql.raw(`CREATE TRIGGER ${table}_insert AFTER INSERT ON knowledge_chunks WHEN new.english = ${english} BEGIN
      INSERT INTO ${table} (rowid, title, section, body, sounds) VALUES (new.id, new.title, new.section, new.body, new.sounds); END`).execute(db)
    await sql.raw(`CREATE TRIGGER ${table}_delete AFTER DELETE ON knowledge_chunks WHEN old.english = ${english} BEGIN
      DELETE FROM ${table} WHERE rowid = old.id; END`).execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`DROP TABLE knowledge_chunks`.execute(db)
    await sql`DROP FUNCTION knowledge_chunks_tsv()`.execute(db)
  } else {
    await sql`DROP TABLE knowledge_chunks`.execute(db)
    await sql`DROP TABLE knowledge_fts_en`.execute(db)
    await sql`DROP TABLE knowledge_fts_any`.execute(db)
  }
  await db.schema.dropTable('knowledge_documents').execute()
  await db.schema.dropTable('knowledge_bases').execute()
}
