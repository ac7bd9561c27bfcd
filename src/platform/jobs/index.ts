export type { JobLeaseTable } from './jobs.table.ts'
export { releaseLease, takeLease } from './lease.ts'
export { Poller } from './poller.ts'
export { NodeIdInUseError, NodePresence, presenceLease } from './presence.ts'
