// A node among others sharing one database: it keeps a presence lease, closes the calls of nodes
// whose lease lapsed, and hears the other nodes' change notifications. A node alone on its
// database (SQLite) only closes the calls its own last run left unfinished.
import { closeAbandonedCalls } from '../../features/calls/index.ts'
import type { Config } from '../../platform/config/index.ts'
import { ChangeListener, type Db, setChangeOrigin } from '../../platform/db/index.ts'
import { NodePresence } from '../../platform/jobs/index.ts'
import type { Logger } from '../../platform/log.ts'
import { changeHandlers } from './changes.ts'

export interface ClusterDeps {
  config: Pick<Config, 'NODE_ID' | 'NODE_LEASE_MS' | 'DATABASE_URL'>
  db: Db
  log: Logger
  /** Whether other nodes share the database (PostgreSQL). */
  shared: boolean
  /** Wakes this node's campaign dispatcher when another node has campaign work. */
  pokeCampaigns: () => void
}

export async function start({ config, db, log, shared, pokeCampaigns }: ClusterDeps): Promise<{ stop(): Promise<void> }> {
  let presence: NodePresence | undefined
  let changes: ChangeListener | undefined
  const stop = async () => {
    await changes?.stop()
    await presence?.stop()
  }
  try {
    if (shared) {
      // closes the calls of nodes lost meanwhile, after each renewal of this node's own presence
      presence = new NodePresence(db, config.NODE_ID, config.NODE_LEASE_MS, log, async () => {
        const lost = await closeAbandonedCalls(db, new Date(), { id: config.NODE_ID, ownToo: false })
        if (lost > 0) log.warn({ calls: lost }, 'calls of a lost node were closed as failed')
      })
      await presence.start()
    }
    const abandoned = await closeAbandonedCalls(db, new Date(), shared ? { id: config.NODE_ID, ownToo: true } : undefined)
    if (abandoned > 0) log.warn({ calls: abandoned }, 'calls left unfinished by the last run were closed as failed')
    if (shared) {
      setChangeOrigin(config.NODE_ID)
      changes = new ChangeListener(config.DATABASE_URL, changeHandlers(db, pokeCampaigns, log))
      await changes.start()
    }
  } catch (err) {
    await stop()
    throw err
  }
  return { stop }
}
