import { randomBytes } from 'node:crypto'
import type { Db } from '../db/index.ts'
import type { Logger } from '../log.ts'
import { releaseLease, takeLease } from './lease.ts'
import { LeaseKeeper } from './rows.ts'

export class NodeIdInUseError extends Error {}

/** The lease name that says node `nodeId` is alive. */
export const presenceLease = (nodeId: string) => `node:${nodeId}`

/**
 * This node's presence: the lease `node:NODE_ID`, renewed every third of its time. Other nodes
 * read it to tell a live node's calls from a lost one's. The owner is this process (NODE_ID and
 * a random part), so a second live process with the same NODE_ID is refused at start.
 */
export class NodePresence {
  readonly owner: string
  private readonly keeper: LeaseKeeper

  constructor(
    private readonly db: Db,
    readonly nodeId: string,
    readonly leaseMs: number,
    private readonly log: Logger,
    /** Runs after each renewal (e.g. closing the calls of lost nodes). */
    private readonly afterRenew: () => Promise<void> = async () => {},
  ) {
    this.owner = `${nodeId}/${randomBytes(4).toString('hex')}`
    this.keeper = new LeaseKeeper(leaseMs, () => this.renew())
  }

  /** Waits out the lease of a killed earlier run of this node; refuses when a live process renews it. */
  async start(): Promise<void> {
    const giveUpAt = Date.now() + this.leaseMs + 1000
    while (!(await takeLease(this.db, presenceLease(this.nodeId), this.owner, new Date(), this.leaseMs))) {
      if (Date.now() > giveUpAt) throw new NodeIdInUseError(`another live node uses NODE_ID ${this.nodeId}; give each node its own`)
      await Bun.sleep(250)
    }
    this.keeper.start()
  }

  private async renew(): Promise<void> {
    try {
      if (!(await takeLease(this.db, presenceLease(this.nodeId), this.owner, new Date(), this.leaseMs))) {
        this.log.error({ nodeId: this.nodeId }, 'presence lease lost to another process with the same NODE_ID')
      }
      await this.afterRenew()
    } catch (err) {
      this.log.warn({ err }, 'presence lease renewal failed; retrying')
    }
  }

  /** Hands the lease back: other nodes treat what is left of this node as lost at once. */
  async stop(): Promise<void> {
    this.keeper.stop()
    await releaseLease(this.db, presenceLease(this.nodeId), this.owner).catch(() => {})
  }
}
