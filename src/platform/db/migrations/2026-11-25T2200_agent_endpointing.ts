import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// An agent's endpointing (issue 22): how much silence ends the caller's turn, 'fast', 'normal' or
// 'patient', or the base silence in ms as decimal digits. Agents made before it get 'normal',
// the engine's default, so their calls behave as they did.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').addColumn('endpointing', 'text', (c) => c.notNull().defaultTo('normal')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').dropColumn('endpointing').execute()
}
