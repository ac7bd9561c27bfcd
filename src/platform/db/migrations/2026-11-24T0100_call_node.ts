import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// The node (NODE_ID) that runs a call: with several nodes on one PostgreSQL database, a node
// closes at start only its own unfinished calls and those of nodes whose presence lease expired.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('node_id', 'text').execute()
  await db.schema.createIndex('calls_open_by_node').on('calls').columns(['status', 'node_id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('calls_open_by_node').execute()
  await db.schema.alterTable('calls').dropColumn('node_id').execute()
}
