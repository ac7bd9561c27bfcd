import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// What a number's caller gets when the call cannot be carried (the workspace at its
// maxConcurrentCalls, or no headroom): 'refuse' (503 with Retry-After, so a PBX or proxy tries
// elsewhere; every number before it) or 'announce' (answered, told the lines are busy, hung up).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').addColumn('when_busy', 'text', (c) => c.notNull().defaultTo('refuse')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').dropColumn('when_busy').execute()
}
