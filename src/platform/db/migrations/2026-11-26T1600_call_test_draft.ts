import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// Browser and media-stream test calls (issue 27): 'true' when the call ran the agent's draft
// prompt or an unsaved workflow instead of what is published. Calls before it ran the published one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('test_draft', 'text', (c) => c.notNull().defaultTo('false')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').dropColumn('test_draft').execute()
}
