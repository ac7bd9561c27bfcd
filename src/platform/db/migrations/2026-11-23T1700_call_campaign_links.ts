import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// Links a call to the outbound job (campaign) and contact that placed it, and stores what
// answered an outbound call, so call records and campaigns can be built side by side.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('outbound_job_id', 'text').execute()
  await db.schema.alterTable('calls').addColumn('outbound_contact_id', 'text').execute()
  await db.schema.alterTable('calls').addColumn('answered_by', 'text').execute()
  await db.schema.createIndex('calls_by_outbound_job').on('calls').columns(['workspace_id', 'outbound_job_id', 'created_at']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('calls_by_outbound_job').execute()
  await db.schema.alterTable('calls').dropColumn('answered_by').execute()
  await db.schema.alterTable('calls').dropColumn('outbound_contact_id').execute()
  await db.schema.alterTable('calls').dropColumn('outbound_job_id').execute()
}
