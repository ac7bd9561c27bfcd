import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// A supervisor's actions on a live call (issue 47): who did what, when, and how it went; and
// the permission to act (calls:supervise) granted to members.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('call_actions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('call_id', 'text', (c) => c.notNull().references('calls.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('target', 'text')
    .addColumn('actor_key_id', 'text', (c) => c.notNull())
    .addColumn('actor_user_id', 'text')
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  // permissions granted to a member beyond their role (calls:supervise): a JSON array
  await db.schema.alterTable('memberships').addColumn('grants', 'text', (c) => c.notNull().defaultTo('[]')).execute()
  await db.schema.createIndex('call_actions_call').on('call_actions').columns(['call_id', 'created_at', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('memberships').dropColumn('grants').execute()
  await db.schema.dropTable('call_actions').execute()
}
