import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'
import { sql } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// Call records: analysis, evaluations, labels, an agent's analysis settings, and the indexes
// the call listing filters on.
const FILTERED = ['agent_id', 'phone_number_id', 'type', 'outcome']

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('call_analyses')
    .addColumn('call_id', 'text', (c) => c.primaryKey().references('calls.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sentiment', 'text')
    .addColumn('is_voicemail', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('model', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('input_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('output_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cost', columnTypes(db).real, (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_after', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute()
  // calls that ended before this migration get analysed too
  await sql`INSERT INTO call_analyses (call_id, workspace_id, status, run_after, created_at)
    SELECT id, workspace_id, 'pending', COALESCE(ended_at, created_at), COALESCE(ended_at, created_at) FROM calls WHERE status = 'ended'`.execute(db)
  await db.schema.createIndex('call_analyses_due').on('call_analyses').columns(['status', 'run_after']).execute()
  await db.schema.createIndex('call_analyses_sentiment').on('call_analyses').columns(['workspace_id', 'sentiment', 'call_id']).execute()

  await db.schema
    .createTable('call_evaluations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('call_id', 'text', (c) => c.notNull().references('calls.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('score', columnTypes(db).real, (c) => c.notNull())
    .addColumn('evaluator_name', 'text', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('criteria', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('call_evaluations_by_call').on('call_evaluations').columns(['call_id', 'created_at']).execute()

  await db.schema
    .createTable('call_labels')
    .addColumn('call_id', 'text', (c) => c.notNull().references('calls.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('call_labels_pk', ['call_id', 'label'])
    .execute()
  await db.schema.createIndex('call_labels_by_label').on('call_labels').columns(['workspace_id', 'label', 'call_id']).execute()

  await db.schema
    .createTable('agent_analysis_settings')
    .addColumn('agent_id', 'text', (c) => c.primaryKey().references('agents.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('prompt', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('criteria', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  // Each listing filter leads one index, in the keyset order (created_at, id); the other filter
  // columns ride along, so rows that fail them are skipped inside the index without a table read.
  for (const col of FILTERED) {
    const rest = FILTERED.filter((c) => c !== col)
    await db.schema.createIndex(`calls_by_${col}`).on('calls').columns(['workspace_id', col, 'created_at', 'id', ...rest, 'status']).execute()
  }
  await sql`CREATE INDEX calls_ended_at ON calls (ended_at) WHERE ended_at IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX calls_ended_at`.execute(db)
  for (const col of FILTERED) await db.schema.dropIndex(`calls_by_${col}`).execute()
  for (const table of ['agent_analysis_settings', 'call_labels', 'call_evaluations', 'call_analyses']) await db.schema.dropTable(table).execute()
}
