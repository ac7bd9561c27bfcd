// Which cache or worker each change notification from another node reaches.
import { invalidatePrincipals } from '../../features/api-keys/index.ts'
import { type Change, type ChangeHandlers, type Db, notifyChange } from '../../platform/db/index.ts'
import type { Logger } from '../../platform/log.ts'
import { forgetWorkspace } from '../../features/workspaces/index.ts'

/** A workspace change drops that cached workspace; campaign work wakes this node's dispatcher; anything else drops cached principals. */
export function changeHandlers(db: Db, pokeCampaigns: () => void, log: Logger): ChangeHandlers {
  return {
    onChange: (c: Change) => {
      if (c.topic === 'workspace') forgetWorkspace(db, c.id)
      else if (c.topic === 'campaigns') pokeCampaigns()
      else void invalidatePrincipals()
    },
    onReset: () => {
      forgetWorkspace(db, undefined)
      void invalidatePrincipals()
    },
    onError: (err) => log.warn({ err: err.message }, 'cache invalidation listener lost its connection; reconnecting (caches expire meanwhile)'),
  }
}

/** Campaign work made on this node: its own dispatcher looks now, and (on a shared database) every other node's too. */
export function campaignWorkAnnouncer(db: Db, pokeHere: () => void, log: Logger): () => void {
  return () => {
    pokeHere()
    notifyChange(db, 'campaigns').catch((err) => log.warn({ err }, 'could not tell the other nodes about campaign work'))
  }
}
