// Cross-node cache invalidation. A write that makes other nodes' cached rows stale announces it
// with notifyChange; on PostgreSQL that is a NOTIFY (sent when the transaction commits), which
// every node's ChangeListener receives on a connection of its own. SQLite has one process, whose
// caches are invalidated where the write happens: there notifyChange does nothing.
import { sql } from 'kysely'
import type pg from 'pg'
import { type Backoff, backoffDelayMs } from '../backoff.ts'
import type { Db } from './database.ts'
import { isPostgres } from './dialect.ts'
import { postgresClient } from './postgres.ts'

export const CHANGES_CHANNEL = 'appliance_changes'

/**
 * What changed: `principals` (keys, roles, members), `workspace` (a workspace row, by id),
 * `campaigns` (a job was created or resumed: every node's dispatcher looks for work).
 */
export type ChangeTopic = 'principals' | 'workspace' | 'campaigns'

export interface Change {
  topic: ChangeTopic
  id?: string
  /** NODE_ID of the node that made the change (it has already invalidated its own caches). */
  origin?: string
}

let origin = ''

/** The name this process signs its notifications with (NODE_ID). */
export function setChangeOrigin(nodeId: string): void {
  origin = nodeId
}

export async function notifyChange(db: Db, topic: ChangeTopic, id?: string): Promise<void> {
  if (!isPostgres(db)) return
  const payload: Change = { topic, id, origin }
  await sql`SELECT pg_notify(${CHANGES_CHANNEL}, ${JSON.stringify(payload)})`.execute(db)
}

export interface ChangeHandlers {
  /** A change made by another node. */
  onChange(change: Change): void
  /** Notifications may have been missed (the connection dropped): drop every cached row. */
  onReset(): void
  onError?(err: Error): void
}

/** Reconnecting after a lost connection: 250 ms, doubling up to 10 s. */
const RECONNECT: Backoff = { firstMs: 250, maxMs: 10_000 }

/**
 * LISTENs on a dedicated connection and reconnects (with back-off) when it drops, calling
 * onReset on every drop and reconnection: while it is down, the caches' own TTLs bound staleness.
 */

export class ChangeListener {
  private client?: pg.Client
  private stopped = false
  private retry?: ReturnType<typeof setTimeout>
  private failures = 0

  constructor(
    private readonly url: string,
    private readonly h: ChangeHandlers,
  ) {}

  get connected(): boolean {
    return this.client !== undefined
  }

  async start(): Promise<void> {
    await this.connect()
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.retry)
    const c = this.client
    this.client = undefined
    await c?.end().catch(() => {})
  }

  private async connect(): Promise<void> {
    if (this.stopped) return
    const client = postgresClient(this.url)
    const lost = (err?: Error) => {
      if (this.client !== client) return
      this.client = undefined
      if (err) this.h.onError?.(err)
      this.h.onReset()
      client.end().catch(() => {})
      this.schedule()
    }
    client.on('error', (err) => lost(err))
    client.on('end', () => lost())
    client.on('notification', (msg) => {
      if (msg.channel !== CHANGES_CHANNEL || !msg.payload) return
      try {
        const change = JSON.parse(msg.payload) as Change
        if (change.origin !== origin) this.h.onChange(change)
      } catch {}
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${CHANGES_CHANNEL}`)
    } catch (err) {
      this.h.onError?.(err as Error)
      client.end().catch(() => {})
      this.schedule()
      return
    }
    if (this.stopped) {
      await client.end().catch(() => {})
      return
    }
    this.client = client
    this.failures = 0
    // anything may have changed while no connection listened
    this.h.onReset()
  }

  private schedule(): void {
    if (this.stopped) return
    clearTimeout(this.retry)
    this.retry = setTimeout(() => void this.connect(), backoffDelayMs(++this.failures, RECONNECT))
  }
}
