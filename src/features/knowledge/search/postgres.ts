// Knowledge search on PostgreSQL: the passage's weighted tsvector (section A, title B, body C,
// sound keys D) against a tsquery of any of the forms and sound keys; english or simple
// dictionary. ts_rank knows no inverse document frequency, so it ranks below FTS5's BM25 (the
// retrieval evaluation's figures in BENCHMARKS.md); these weights (section 0.8, body and sounds
// 0.2, title 0.1: a title is every passage's of its document) and the length normalisation 32
// (rank / (rank + 1)) ranked best there. Forms and keys hold only letters, digits and spaces, so
// they cannot carry tsquery syntax.
import { sql } from 'kysely'
import type { Form } from '../text/index.ts'
import type { Candidate, FullTextEngine, Probe } from './contracts.ts'

const config = (english: boolean) => (english ? 'english' : 'simple')
const text = (f: Form) => `(${f.phrase.split(' ').join(' <-> ')}${f.prefix ? ':*' : ''})`
const sound = (key: string) => `${key}:D`

export const postgresEngine: FullTextEngine = {
  async candidates(db, bases, english, forms, sounds, limit) {
    const baseIds = bases.map((b) => b.id)
    // a sound key goes through the simple dictionary (it is no English word), a form through the base's
    const query = sql`(to_tsquery(${config(english)}::regconfig, ${forms.map(text).join(' | ')})${sounds.length ? sql` || to_tsquery('simple', ${sounds.map(sound).join(' | ')})` : sql``})`
    const rows = await sql<Candidate>`
      SELECT c.id AS "chunkId", c.document_id AS "documentId", d.name AS "documentName", c.title, c.section, c.body, c.answer, c.sounds, ts_rank('{0.2, 0.2, 0.1, 0.8}'::float4[], c.tsv, s.q, 32) AS rank
      FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id, (SELECT ${query} AS q) s
      WHERE c.knowledge_base_id = ANY(${baseIds}) AND c.english = ${english ? 1 : 0} AND c.tsv @@ s.q
      ORDER BY rank DESC, c.id LIMIT ${limit}`.execute(db)
    return rows.rows.map((r) => ({ ...r, chunkId: Number(r.chunkId), rank: Number(r.rank) }))
  },

  async df(db, bases, english, probes, cap) {
    if (!probes.length) return []
    const baseIds = bases.map((b) => b.id)
    // one subquery per probe with its tsquery a constant, so that each can use the GIN index
    const parts = probes.map((p, i) => {
      const q = 'form' in p ? sql`to_tsquery(${config(english)}::regconfig, ${text(p.form)})` : sql`to_tsquery('simple', ${sound(p.sound)})`
      return sql`SELECT ${i}::int AS i, numnode(${q}) = 0 AS stop, (SELECT count(*) FROM (SELECT 1 FROM knowledge_chunks c
        WHERE c.knowledge_base_id = ANY(${baseIds}) AND c.english = ${english ? 1 : 0} AND c.tsv @@ ${q} LIMIT ${cap}) x) AS df`
    })
    const rows = await sql<{ i: number; stop: boolean; df: number }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db)
    const out: (number | null)[] = probes.map(() => 0)
    for (const r of rows.rows) out[Number(r.i)] = r.stop ? null : Number(r.df)
    return out
  },
}
