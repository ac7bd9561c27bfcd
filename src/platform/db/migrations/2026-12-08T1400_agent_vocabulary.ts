import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// An agent's vocabulary (issue 42): the words and phrases its callers say that a general
// recogniser gets wrong, as a JSON list. Agents made before it have none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').addColumn('vocabulary', 'text', (c) => c.notNull().defaultTo('[]')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').dropColumn('vocabulary').execute()
}
