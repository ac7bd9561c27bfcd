import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('agent_id', 'text')
    .addColumn('agent_name', 'text')
    .addColumn('phone_number_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text')
    .addColumn('end_reason', 'text')
    .addColumn('sip_call_id', 'text')
    .addColumn('variables', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('transcript', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('metrics', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('cost', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('recording_path', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('answered_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('duration_sec', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.createIndex('calls_workspace_created').on('calls').columns(['workspace_id', 'created_at', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('calls').execute()
}
