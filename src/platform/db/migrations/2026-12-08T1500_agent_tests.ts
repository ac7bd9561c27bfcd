import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// Test cases of an agent (issue 48): a scripted caller and what the agent is expected to do.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_tests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('caller', 'text', (c) => c.notNull())
    .addColumn('expectations', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('api'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('agent_tests_agent').on('agent_tests').columns(['workspace_id', 'agent_id', 'created_at', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('agent_tests').execute()
}
