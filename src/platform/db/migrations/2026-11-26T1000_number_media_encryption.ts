import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// A number's media encryption (issue 28): 'none' (plain RTP), 'optional' (SRTP offered with SDES
// keys, plain accepted) or 'required' (SRTP only, over TLS signalling). Numbers made before it get
// 'none', so their calls stay as they were; new numbers get MEDIA_ENCRYPTION unless the API says.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').addColumn('media_encryption', 'text', (c) => c.notNull().defaultTo('none')).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('phone_numbers').dropColumn('media_encryption').execute()
}
