import { sql } from 'kysely'
import type { Db } from '../db/index.ts'

/**
 * Takes or renews the lease named `name` for `owner` until `now + ttlMs`. True when `owner`
 * holds it afterwards: it was free, expired, or already ours. One statement, so two nodes
 * racing for it cannot both win.
 */
export async function takeLease(db: Db, name: string, owner: string, now: Date, ttlMs: number): Promise<boolean> {
  const expires = new Date(now.getTime() + ttlMs).toISOString()
  const res = await sql<{ owner: string }>`
    INSERT INTO job_leases (name, owner, expires_at) VALUES (${name}, ${owner}, ${expires})
    ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
    WHERE job_leases.owner = excluded.owner OR job_leases.expires_at <= ${now.toISOString()}
    RETURNING owner`.execute(db)
  return res.rows.length === 1
}

export const releaseLease = (db: Db, name: string, owner: string) =>
  db.deleteFrom('job_leases').where('name', '=', name).where('owner', '=', owner).execute()
