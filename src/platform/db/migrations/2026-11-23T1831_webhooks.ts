import type { Kysely } from 'kysely'
import { autoId, autoIdType, columnTypes } from '../dialect.ts'

// Landed migrations never change; add a new timestamped file instead.
// The webhook outbox (one row per event, its id is the webhook-id), its attempts, the
// per-workspace signing secrets, and leases of singleton background jobs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('call_id', 'text', (c) => c.references('calls.id').onDelete('cascade'))
    .addColumn('agent_id', 'text')
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('payload', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute()
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute()
  await db.schema.createIndex('webhook_deliveries_by_workspace').on('webhook_deliveries').columns(['workspace_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('webhook_deliveries_by_call').on('webhook_deliveries').columns(['call_id']).execute()

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', autoIdType(db), autoId(db))
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', columnTypes(db).real, (c) => c.notNull())
    .addColumn('error', 'text')
    .execute()
  await db.schema.createIndex('webhook_attempts_by_delivery').on('webhook_attempts').columns(['delivery_id', 'id']).execute()

  await db.schema
    .createTable('webhook_secrets')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_valid_until', 'text')
    .addColumn('rotated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('job_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['job_leases', 'webhook_secrets', 'webhook_attempts', 'webhook_deliveries']) await db.schema.dropTable(table).execute()
}
