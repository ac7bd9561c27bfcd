// Call rows have one writer, the call ledger (src/features/calls/records/ledger.ts): when they were
// written from many files, one path that ended calls forgot the analysis and the webhook.
// Reading `calls` is free; inserting, updating or deleting its rows anywhere else fails here.
// Migrations are exempt: they shape the table once, and never change after landing.
import { expect, test } from 'bun:test'
import { matchesByLine, srcFiles } from '../helpers/src-files.ts'

const LEDGER = 'features/calls/records/ledger.ts'
const MIGRATIONS = 'platform/db/migrations/'

const WRITES = [
  // Kysely: insertInto('calls'), updateTable("calls as c"), deleteFrom(`calls`), ...
  /\b(?:insertInto|replaceInto|updateTable|deleteFrom|mergeInto)\(\s*['"`]calls(?:\s+as\s+\w+)?['"`]/gi,
  // SQL text: INSERT [OR ...] INTO calls, REPLACE INTO calls, UPDATE [OR ...] calls, DELETE FROM calls, quoted or not
  /\b(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+["`]?calls\b/gi,
]

/** Each write of `calls` in `text`, as its line number and the matched text. */
export function callWrites(text: string): string[] {
  return matchesByLine(text, WRITES)
}

test('only the call ledger writes call rows', () => {
  const elsewhere = [...srcFiles()]
    .filter(([file]) => file !== LEDGER && !file.startsWith(MIGRATIONS))
    .flatMap(([file, text]) => callWrites(text).map((w) => `${file}:${w}`))
  expect(elsewhere).toEqual([])
})

test('the ledger is where the writes are', () => {
  expect(callWrites(srcFiles().get(LEDGER)!).length).toBeGreaterThan(0)
})

test('the scan finds every way of writing a call row, and no read', () => {
  const writes = [
    "await trx.insertInto('calls').values(row).execute()",
    'db.updateTable("calls").set({ status })',
    'db.updateTable(`calls as c`).set({ status })',
    "db\n  .deleteFrom( 'calls' )\n  .where('id', '=', id)",
    'sql`INSERT INTO calls (id) VALUES (${id})`',
    'sql`insert or ignore into "calls" (id) values (${id})`',
    'sql`UPDATE calls SET cost = ${c}`',
    'sql`Delete From calls WHERE id = ${id}`',
    "sqlite.prepare('REPLACE INTO calls VALUES (?)')",
  ]
  for (const w of writes) expect(callWrites(w)).toHaveLength(1)
  const reads = [
    "db.selectFrom('calls').selectAll()",
    "db.updateTable('call_analyses').set({ status })",
    "db.deleteFrom('call_labels').where('call_id', '=', id)",
    'sql`UPDATE call_analyses SET x = 1 WHERE call_id IN (SELECT id FROM calls)`',
    "db.schema.alterTable('calls').addColumn('node_id', 'text')",
  ]
  for (const r of reads) expect(callWrites(r)).toEqual([])
})
