import { type Db, notifyChange } from '../../platform/db/index.ts'
import type { Principal } from './principal.ts'

// Bumped by every write that changes what a key may do (revocation, role change, removal).
let epoch = 0

/**
 * Call after a write that changes who a key is or what it may do; every cache of this process
 * forgets at once, and with `db` on PostgreSQL the other nodes are told (their change listener
 * calls this without `db`).
 */
export async function invalidatePrincipals(db?: Db): Promise<void> {
  epoch++
  if (db) await notifyChange(db, 'principals')
}

interface Entry {
  principal: Principal
  keyExpiresAtMs: number | null
  untilMs: number
  epoch: number
}

/**
 * Resolved keys, kept for `ttlMs` so the per-request key lookup leaves the hot path. Writes on
 * this node invalidate at once (the epoch); with several nodes on one database, a revocation or
 * role change made elsewhere reaches this node within `ttlMs`. A ttl of 0 turns caching off.
 *
 * Entries are keyed by the bearer token itself, so a hit costs no SHA-256. The raw tokens of
 * keys used recently therefore sit in this process's memory (as every request's headers do
 * anyway); they are never written anywhere, and only keys that authenticated are kept.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>()

  constructor(private readonly ttlMs: number) {}

  /** The epoch to pass to `set`, read before the database lookup starts. */
  begin(): number {
    return epoch
  }

  get(token: string, nowMs: number): Principal | undefined {
    const e = this.entries.get(token)
    if (!e) return undefined
    if (e.epoch !== epoch || e.untilMs <= nowMs || (e.keyExpiresAtMs !== null && e.keyExpiresAtMs <= nowMs)) {
      this.entries.delete(token)
      return undefined
    }
    return e.principal
  }

  /** Ignored when an invalidation happened since `begin`: the lookup may have read old rows. */
  set(token: string, principal: Principal, keyExpiresAtMs: number | null, startedEpoch: number, nowMs: number): void {
    if (this.ttlMs <= 0 || startedEpoch !== epoch) return
    if (this.entries.size >= 10_000) this.entries.clear()
    this.entries.set(token, { principal, keyExpiresAtMs, untilMs: nowMs + this.ttlMs, epoch })
  }
}
