import { type Kysely, sql } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// A number that takes inbound calls belongs to one workspace at a time: at most one live row per
// e164 across workspaces. Rows from before this rule are settled deterministically: the oldest
// live row of an e164 (created_at, then id) keeps it; every later one is released the way
// DELETE /api/phone-numbers/{id} releases (agents detached, SIP password dropped), its other
// data kept, and status_reason says why. Bought duplicates are not released at the carrier.
export async function up(db: Kysely<unknown>): Promise<void> {
  const at = new Date().toISOString()
  await sql`
    UPDATE phone_numbers AS later
    SET status = 'released', released_at = ${at}, updated_at = ${at},
        inbound_agent_id = NULL, outbound_agent_id = NULL, sip_password_enc = NULL,
        status_reason = 'number_in_use: released on upgrade; ' || later.e164 || ' stays with workspace ' || (
          SELECT keeper.workspace_id FROM phone_numbers AS keeper
          WHERE keeper.e164 = later.e164 AND keeper.released_at IS NULL
          ORDER BY keeper.created_at, keeper.id LIMIT 1)
    WHERE later.released_at IS NULL
      AND EXISTS (
        SELECT 1 FROM phone_numbers AS earlier
        WHERE earlier.e164 = later.e164 AND earlier.released_at IS NULL
          AND (earlier.created_at < later.created_at OR (earlier.created_at = later.created_at AND earlier.id < later.id)))
  `.execute(db)
  await db.schema
    .createIndex('phone_numbers_e164_owner')
    .on('phone_numbers')
    .column('e164')
    .unique()
    .where(sql.ref('released_at'), 'is', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('phone_numbers_e164_owner').execute()
}
