import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// An agent's knowledge bases (issue 29): the ids of the bases its calls search, as a JSON list,
// and whether every caller turn is searched for its LLM ('true') or only when it calls the
// knowledge_search tool ('false'). Agents made before it link none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').addColumn('knowledge_base_ids', 'text', (c) => c.notNull().defaultTo('[]')).execute()
  await db.schema.alterTable('agents').addColumn('knowledge_auto_search', 'text', (c) => c.notNull().defaultTo('false')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').dropColumn('knowledge_auto_search').execute()
  await db.schema.alterTable('agents').dropColumn('knowledge_base_ids').execute()
}
