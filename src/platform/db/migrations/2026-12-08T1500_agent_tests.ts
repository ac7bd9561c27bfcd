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
  // runs and their results outlive the cases (a result keeps the case's name); they go with the agent
  await db.schema
    .createTable('agent_test_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('passed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute()
  await db.schema.createIndex('agent_test_runs_agent').on('agent_test_runs').columns(['workspace_id', 'agent_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('agent_test_runs_status').on('agent_test_runs').column('status').execute()
  await db.schema
    .createTable('agent_test_results')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('agent_test_runs.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('test_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text')
    .addColumn('verdicts', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('error', 'text')
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute()
  await db.schema.createIndex('agent_test_results_run').on('agent_test_results').columns(['run_id', 'position']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('agent_test_results').execute()
  await db.schema.dropTable('agent_test_runs').execute()
  await db.schema.dropTable('agent_tests').execute()
}
