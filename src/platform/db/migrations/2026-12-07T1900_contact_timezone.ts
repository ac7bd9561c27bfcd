import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// A campaign contact's own time zone (IANA), given at creation. Contacts before it have none:
// they are called in their number's zone, as every contact without one is.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbound_contacts').addColumn('timezone', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbound_contacts').dropColumn('timezone').execute()
}
