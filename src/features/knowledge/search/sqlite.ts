// Knowledge search on SQLite: FTS5 with BM25 (title 1, section 4, body 1, sound keys 1), in the
// base's own table (fts5-tables.ts), so that its term statistics are the base's alone; bases are
// searched one by one and merged by rank. Forms and keys hold only letters, digits and spaces, so
// quoting them makes each a phrase, never syntax.
import { sql } from 'kysely'
import type { Form } from '../text/index.ts'
import type { Candidate, FullTextEngine } from './contracts.ts'
import { ftsTable } from './fts5-tables.ts'

const bm25 = (table: ReturnType<typeof ftsTable>) => sql`bm25(${table}, 1.0, 4.0, 1.0, 1.0)`
const text = (f: Form) => `{title section body} : "${f.phrase}"${f.prefix ? '*' : ''}`
const sound = (key: string) => `sounds : "${key}"`

export const sqliteEngine: FullTextEngine = {
  async candidates(db, bases, english, forms, sounds, limit) {
    const match = [...forms.map(text), ...sounds.map(sound)].join(' OR ')
    const found: Candidate[] = []
    for (const base of bases) {
      const table = ftsTable(base.block, english)
      const rows = await sql<Candidate>`
        SELECT c.id AS "chunkId", c.document_id AS "documentId", d.name AS "documentName", c.title, c.section, c.body, c.answer, c.sounds, -${bm25(table)} AS rank
        FROM ${table} f JOIN knowledge_chunks c ON c.id = f.rowid JOIN knowledge_documents d ON d.id = c.document_id
        WHERE ${table} MATCH ${match}
        ORDER BY ${bm25(table)}, f.rowid LIMIT ${limit}`.execute(db)
      found.push(...rows.rows.map((r) => ({ ...r, chunkId: Number(r.chunkId) })))
    }
    // each base's BM25 is on its own statistics: of the same scale, so they merge by rank
    return found.sort((a, b) => b.rank - a.rank || a.chunkId - b.chunkId).slice(0, limit)
  },

  // one statement per probe and base: its SQL text is the same for every probe, so SQLite prepares it once per base
  async df(db, bases, english, probes, cap) {
    const out: number[] = []
    for (const p of probes) {
      const match = 'form' in p ? text(p.form) : sound(p.sound)
      let n = 0
      for (const base of bases) {
        const table = ftsTable(base.block, english)
        const r = await sql<{ df: number }>`SELECT count(*) AS df FROM (SELECT rowid FROM ${table} WHERE ${table} MATCH ${match} LIMIT ${cap})`.execute(db)
        n += Number(r.rows[0]?.df ?? 0)
      }
      out.push(Math.min(n, cap))
    }
    return out
  },
}
