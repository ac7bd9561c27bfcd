import { type RawBuilder, sql } from 'kysely'
import { type Db, skipLocked } from '../db/index.ts'

/**
 * How often a holder renews a lease of `leaseMs`: every third of it, so one missed renewal (a
 * slow database, a long event-loop turn) still leaves the lease held. Never under 50 ms.
 */
export const renewEvery = (leaseMs: number): number => Math.max(50, Math.floor(leaseMs / 3))

/** Calls `renew` every `renewEvery(leaseMs)` until `stop()`; a renewal still running is not started twice. `renew` handles its own errors (it logs and retries at the next turn). */
export class LeaseKeeper {
  private timer?: ReturnType<typeof setInterval>
  private renewing = false

  constructor(
    readonly leaseMs: number,
    private readonly renew: () => Promise<void>,
  ) {}

  get intervalMs(): number {
    return renewEvery(this.leaseMs)
  }

  start(): void {
    clearInterval(this.timer)
    this.timer = setInterval(() => void this.tick(), this.intervalMs)
  }

  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  private async tick(): Promise<void> {
    if (this.renewing) return
    this.renewing = true
    try {
      await this.renew()
    } finally {
      this.renewing = false
    }
  }
}

/** The lease columns of a leased row: who holds it and until when (ISO text). */
export interface LeasedRow {
  lease_owner: string | null
  lease_expires_at: string | null
}

/** The lease columns of a row given back (done, or to be retried). */
export const NO_LEASE = { lease_owner: null, lease_expires_at: null } as const

export interface RowClaim {
  /** A table with `lease_owner` and `lease_expires_at` columns. */
  table: 'webhook_deliveries' | 'call_analyses'
  /** Its primary key. */
  key: string
  /** The condition that makes a row due, besides a free lease (e.g. `status = 'pending' AND run_after <= now`). */
  due: RawBuilder<unknown>
  /** The column the oldest due rows are taken by. */
  orderBy: string
  owner: string
  now: Date
  leaseMs: number
  limit: number
  /** Each claim also counts an attempt (`attempts = attempts + 1`). */
  countAttempt?: boolean
}

/**
 * Claims up to `limit` due rows whose lease is free or expired for `owner` until `now + leaseMs`,
 * in one statement: on PostgreSQL the candidates are locked with SKIP LOCKED, so nodes claiming
 * at the same moment each get different rows; SQLite has one writer at a time.
 */
export async function claimRows<Row extends LeasedRow>(db: Db, c: RowClaim): Promise<Row[]> {
  if (c.limit <= 0) return []
  const at = c.now.toISOString()
  const until = new Date(c.now.getTime() + c.leaseMs).toISOString()
  const table = sql.table(c.table)
  const key = sql.ref(c.key)
  const attempts = c.countAttempt ? sql`, attempts = attempts + 1` : sql``
  const res = await sql<Row>`
    UPDATE ${table} SET lease_owner = ${c.owner}, lease_expires_at = ${until}${attempts}
    WHERE ${key} IN (
      SELECT ${key} FROM ${table}
      WHERE (${c.due}) AND (lease_expires_at IS NULL OR lease_expires_at <= ${at})
      ORDER BY ${sql.ref(c.orderBy)} LIMIT ${c.limit} ${skipLocked(db)})
    RETURNING *`.execute(db)
  return res.rows
}
