// Nodes sharing one database: presence, lost nodes' calls, change notifications.
export { type ClusterDeps, start } from './start.ts'
export { campaignWorkAnnouncer, changeHandlers } from './changes.ts'
