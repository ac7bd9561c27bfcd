import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').addColumn('sip_register', 'integer', (c) => c.notNull().defaultTo(0)).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').dropColumn('sip_register').execute()
}
