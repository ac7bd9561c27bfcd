// Knowledge search on SQLite: FTS5 with BM25 (title 1, section 4, body 1, sound keys 1), in
// knowledge_fts_en (porter) or knowledge_fts_any (unicode61). Each base is searched by the rowid
// range of its passages, which FTS5 seeks to; bases are searched one by one and merged. Forms and
// keys hold only letters, digits and spaces, so quoting them makes each a phrase, never syntax.
import { sql } from 'kysely'
import { passageRange } from '../knowledge.repository.ts'
import type { Form } from '../text/index.ts'
import type { Candidate, FullTextEngine } from './contracts.ts'

const table = (english: boolean) => sql.raw(english ? 'knowledge_fts_en' : 'knowledge_fts_any')
const bm25 = (english: boolean) => sql`bm25(${table(english)}, 1.0, 4.0, 1.0, 1.0)`
const text = (f: Form) => `{title section body} : "${f.phrase}"${f.prefix ? '*' : ''}`
const sound = (key: string) => `sounds : "${key}"`

export const sqliteEngine: FullTextEngine = {
  async candidates(db, bases, english, forms, sounds, limit) {
    const match = [...forms.map(text), ...sounds.map(sound)].join(' OR ')
    const found: Candidate[] = []
    for (const base of bases) {
      const [first, last] = passageRange(base.block)
      const rows = await sql<Candidate>`
        SELECT c.id AS "chunkId", c.document_id AS "documentId", d.name AS "documentName", c.title, c.section, c.body, c.answer, c.sounds, -${bm25(english)} AS rank
        FROM ${table(english)} f JOIN knowledge_chunks c ON c.id = f.rowid JOIN knowledge_documents d ON d.id = c.document_id
        WHERE ${table(english)} MATCH ${match} AND f.rowid BETWEEN ${first} AND ${last}
        ORDER BY ${bm25(english)} LIMIT ${limit}`.execute(db)
      found.push(...rows.rows.map((r) => ({ ...r, chunkId: Number(r.chunkId) })))
    }
    // BM25 of one table compares across its bases
    return found.sort((a, b) => b.rank - a.rank).slice(0, limit)
  },

  // one statement per probe and base: its SQL text never changes, so SQLite prepares it once
  async df(db, bases, english, probes, cap) {
    const out: number[] = []
    for (const p of probes) {
      const match = 'form' in p ? text(p.form) : sound(p.sound)
      let n = 0
      for (const base of bases) {
        const [first, last] = passageRange(base.block)
        const r = await sql<{ df: number }>`SELECT count(*) AS df FROM (SELECT rowid FROM ${table(english)} WHERE ${table(english)} MATCH ${match} AND rowid BETWEEN ${first} AND ${last} LIMIT ${cap})`.execute(db)
        n += Number(r.rows[0]?.df ?? 0)
      }
      out.push(Math.min(n, cap))
    }
    return out
  },
}
