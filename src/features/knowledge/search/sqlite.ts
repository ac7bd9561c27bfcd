// Knowledge search on SQLite: FTS5 with BM25 (title 1, section 4, body 1, sound keys 1; the base
// id column 0), in knowledge_fts_en (porter) or knowledge_fts_any (unicode61). Forms and keys
// hold only letters, digits and spaces, so quoting them makes each a phrase, never syntax.
import { type RawBuilder, sql } from 'kysely'
import type { Form, TermStat } from '../text/index.ts'
import type { Candidate, FullTextEngine } from './contracts.ts'

const table = (english: boolean) => sql.raw(english ? 'knowledge_fts_en' : 'knowledge_fts_any')
/** Base ids are ours (letters, digits, underscore), quoted as phrases like the terms. */
const inBases = (baseIds: string[]) => `kb : (${baseIds.map((id) => `"${id.replace(/[^A-Za-z0-9_]/g, '')}"`).join(' OR ')})`
const bm25 = (english: boolean) => sql`bm25(${table(english)}, 0.0, 1.0, 4.0, 1.0, 1.0)`
const text = (f: Form) => `{title section body} : "${f.phrase}"${f.prefix ? '*' : ''}`
const sound = (key: string) => `sounds : "${key}"`

export const sqliteEngine: FullTextEngine = {
  async candidates(db, baseIds, english, forms, sounds, limit) {
    const match = `${inBases(baseIds)} AND (${[...forms.map(text), ...sounds.map(sound)].join(' OR ')})`
    const rows = await sql<Candidate>`
      SELECT c.id AS "chunkId", c.document_id AS "documentId", d.name AS "documentName", c.title, c.section, c.body, c.answer, -${bm25(english)} AS rank
      FROM ${table(english)} f JOIN knowledge_chunks c ON c.id = f.rowid JOIN knowledge_documents d ON d.id = c.document_id
      WHERE ${table(english)} MATCH ${match}
      ORDER BY ${bm25(english)} LIMIT ${limit}`.execute(db)
    return rows.rows.map((r) => ({ ...r, chunkId: Number(r.chunkId) }))
  },

  async stats(db, baseIds, english, forms, sounds, chunkIds) {
    const phrases = [...forms.map(text), ...sounds.map(sound)]
    if (!phrases.length) return { forms: [], sounds: [] }
    const ids = chunkIds.length ? sql.join(chunkIds.map((id) => sql.lit(id))) : sql.lit(-1)
    const parts: RawBuilder<unknown>[] = phrases.map(
      (phrase, i) => sql`SELECT ${i} AS i, count(*) AS df, group_concat(rowid) FILTER (WHERE rowid IN (${ids})) AS hits
        FROM ${table(english)} WHERE ${table(english)} MATCH ${`${inBases(baseIds)} AND ${phrase}`}`,
    )
    const rows = await sql<{ i: number; df: number; hits: string | null }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db)
    const all: TermStat[] = phrases.map(() => ({ df: 0, in: new Set<number>() }))
    for (const r of rows.rows) all[Number(r.i)] = { df: Number(r.df), in: new Set((r.hits ?? '').split(',').filter(Boolean).map(Number)) }
    return { forms: all.slice(0, forms.length), sounds: all.slice(forms.length) }
  },
}
