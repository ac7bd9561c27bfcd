import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// A workspace's maxConcurrentCalls, set by the operator: the calls of every kind it may have up
// at once. Null (every workspace before it) is unlimited.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('max_concurrent_calls', 'integer').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').dropColumn('max_concurrent_calls').execute()
}
