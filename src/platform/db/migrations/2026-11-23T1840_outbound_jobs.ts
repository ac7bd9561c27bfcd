import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect.ts'

// Landed migrations never change; add a new timestamped file instead.
// Outbound jobs (campaigns), their contacts with the dispatcher's lease, and the workspace
// do-not-call list.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('outbound_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('phone_number_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('start_at_ms', columnTypes(db).ms, (c) => c.notNull())
    .addColumn('total_contacts', 'integer', (c) => c.notNull())
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('answered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('no_answer', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('busy', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('voicemail', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('suppressed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cancelled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .execute()
  await db.schema.createIndex('outbound_jobs_workspace_created').on('outbound_jobs').columns(['workspace_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('outbound_jobs_status').on('outbound_jobs').columns(['status', 'start_at_ms']).execute()
  await db.schema
    .createTable('outbound_contacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('job_id', 'text', (c) => c.notNull().references('outbound_jobs.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('variables', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_ms', columnTypes(db).ms, (c) => c.notNull().defaultTo(0))
    .addColumn('call_id', 'text')
    .addColumn('call_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_ms', columnTypes(db).ms)
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('outbound_contacts_due').on('outbound_contacts').columns(['job_id', 'status', 'next_attempt_ms', 'position']).execute()
  await db.schema.createIndex('outbound_contacts_position').on('outbound_contacts').columns(['job_id', 'position']).unique().execute()
  await db.schema.createIndex('outbound_contacts_lease').on('outbound_contacts').columns(['status', 'lease_expires_ms']).execute()
  await db.schema
    .createTable('do_not_call')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('do_not_call_pk', ['workspace_id', 'number'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('do_not_call').execute()
  await db.schema.dropTable('outbound_contacts').execute()
  await db.schema.dropTable('outbound_jobs').execute()
}
