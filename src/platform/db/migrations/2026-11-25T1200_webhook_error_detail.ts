import { type Kysely, sql } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
// A webhook attempt's error becomes a coarse code that every member may read (connection_failed,
// timeout, tls_failed, http_status, address_refused, internal_error); the network error text
// (`connect ECONNREFUSED 192.0.2.2:9`) moves to *_detail, shown to admins only: together the
// texts told a member which ports of a host are open. Rows written before keep their text as
// the detail and get the code their text names.
const CODE_OF = (col: string) =>
  sql.raw(`CASE
    WHEN ${col} IS NULL THEN NULL
    WHEN ${col} LIKE 'HTTP %' OR ${col} LIKE 'receiver answered%' THEN 'http_status'
    WHEN ${col} LIKE 'no answer within%' THEN 'timeout'
    WHEN ${col} LIKE 'refused by the address rules%' THEN 'address_refused'
    WHEN ${col} LIKE 'could not prepare%' THEN 'internal_error'
    WHEN lower(${col}) LIKE '%certificate%' OR lower(${col}) LIKE '%ssl%' OR lower(${col}) LIKE '%tls%' THEN 'tls_failed'
    ELSE 'connection_failed' END`)

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('last_error_detail', 'text').execute()
  await db.schema.alterTable('webhook_attempts').addColumn('error_detail', 'text').execute()
  // both dialects evaluate every SET expression on the row as it was
  await sql`UPDATE webhook_deliveries SET last_error_detail = last_error, last_error = ${CODE_OF('last_error')} WHERE last_error IS NOT NULL`.execute(db)
  await sql`UPDATE webhook_attempts SET error_detail = error, error = ${CODE_OF('error')} WHERE error IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE webhook_attempts SET error = error_detail WHERE error_detail IS NOT NULL`.execute(db)
  await sql`UPDATE webhook_deliveries SET last_error = last_error_detail WHERE last_error_detail IS NOT NULL`.execute(db)
  await db.schema.alterTable('webhook_attempts').dropColumn('error_detail').execute()
  await db.schema.alterTable('webhook_deliveries').dropColumn('last_error_detail').execute()
}
