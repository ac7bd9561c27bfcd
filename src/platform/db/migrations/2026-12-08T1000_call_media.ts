import type { Kysely } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// Media diagnostics per call (issue 44): JSON of the call's media facts (codec, remote media
// address, SRTP suite, packets and bytes each way, loss, lateness, jitter, largest gap; web calls
// their ICE/DTLS outcome). NULL for calls that had no media and for calls before it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('media', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('calls').dropColumn('media').execute()
}
