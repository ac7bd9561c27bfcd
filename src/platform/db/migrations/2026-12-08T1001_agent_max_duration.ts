import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// An agent's maximum call duration (issue 44): whole seconds as decimal digits, '' when the
// appliance's CALL_MAX_DURATION_MS applies (every agent made before it).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').addColumn('max_duration_sec', 'text', (c) => c.notNull().defaultTo('')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').dropColumn('max_duration_sec').execute()
}
