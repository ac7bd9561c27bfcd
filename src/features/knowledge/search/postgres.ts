// Knowledge search on PostgreSQL: the passage's weighted tsvector (section A, title B, body C,
// sound keys D) against a tsquery of any of the forms and sound keys; english or simple
// dictionary. ts_rank knows no inverse document frequency, so it ranks below FTS5's BM25 (the
// retrieval evaluation's figures in BENCHMARKS.md); these weights (section 0.8, body and sounds
// 0.2, title 0.1: a title is every passage's of its document) and the length normalisation 32
// (rank / (rank + 1)) ranked best there. Forms and keys hold only letters, digits and spaces, so
// they cannot carry tsquery syntax.
import { sql } from 'kysely'
import type { Form, TermStat } from '../text/index.ts'
import type { Candidate, FullTextEngine } from './contracts.ts'

const config = (english: boolean) => (english ? 'english' : 'simple')
const text = (f: Form) => `(${f.phrase.split(' ').join(' <-> ')}${f.prefix ? ':*' : ''})`
const sound = (key: string) => `${key}:D`

export const postgresEngine: FullTextEngine = {
  async candidates(db, baseIds, english, forms, sounds, limit) {
    // a sound key goes through the simple dictionary (it is no English word), a form through the base's
    const query = sql`(to_tsquery(${config(english)}::regconfig, ${forms.map(text).join(' | ')})${sounds.length ? sql` || to_tsquery('simple', ${sounds.map(sound).join(' | ')})` : sql``})`
    const rows = await sql<Candidate>`
      SELECT c.id AS "chunkId", c.document_id AS "documentId", d.name AS "documentName", c.title, c.section, c.body, c.answer, ts_rank('{0.2, 0.2, 0.1, 0.8}'::float4[], c.tsv, s.q, 32) AS rank
      FROM knowledge_chunks c JOIN knowledge_documents d ON d.id = c.document_id, (SELECT ${query} AS q) s
      WHERE c.knowledge_base_id = ANY(${baseIds}) AND c.english = ${english ? 1 : 0} AND c.tsv @@ s.q
      ORDER BY rank DESC, c.id LIMIT ${limit}`.execute(db)
    return rows.rows.map((r) => ({ ...r, chunkId: Number(r.chunkId), rank: Number(r.rank) }))
  },

  async stats(db, baseIds, english, forms, sounds, chunkIds) {
    const texts = [...forms.map(text), ...sounds.map(sound)]
    if (!texts.length) return { forms: [], sounds: [] }
    const configs = [...forms.map(() => config(english)), ...sounds.map(() => 'simple')]
    const rows = await sql<{ i: number; stop: boolean; df: number; hits: number[] | null }>`
      SELECT t.i, numnode(to_tsquery(t.cfg::regconfig, t.text)) = 0 AS stop, count(c.id) AS df,
             array_agg(c.id) FILTER (WHERE c.id = ANY(${chunkIds.map(Number)}::bigint[])) AS hits
      FROM unnest(${texts}::text[], ${configs}::text[]) WITH ORDINALITY AS t(text, cfg, i)
      LEFT JOIN knowledge_chunks c ON c.knowledge_base_id = ANY(${baseIds}) AND c.english = ${english ? 1 : 0} AND c.tsv @@ to_tsquery(t.cfg::regconfig, t.text)
      GROUP BY t.i, t.text, t.cfg`.execute(db)
    const all: (TermStat | null)[] = texts.map(() => null)
    for (const r of rows.rows) all[Number(r.i) - 1] = r.stop ? null : { df: Number(r.df), in: new Set((r.hits ?? []).map(Number)) }
    return { forms: all.slice(0, forms.length), sounds: all.slice(forms.length).map((s) => s ?? { df: 0, in: new Set<number>() }) }
  },
}
