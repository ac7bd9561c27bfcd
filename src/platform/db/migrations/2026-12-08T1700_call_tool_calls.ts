import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// The tool calls the agent made on a call (issue 48: agent tests judge tool_called): a JSON array of
// {name, arguments, result, at}. Calls before it kept none.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('tool_calls', 'text', (c) => c.notNull().defaultTo('[]')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').dropColumn('tool_calls').execute()
}
