// The campaigns feature's public face; its HTTP routes are campaigns.http.ts.
export { Dispatcher, type DispatcherDeps } from './dispatcher.ts'
export { noEvents, RecordedEvents, type CampaignEvent, type CampaignEvents } from './events.ts'
export { contactOfCall, outboxEvents } from './webhook-events.ts'
export type { OutboundContactTable, OutboundJobTable } from './campaigns.table.ts'
export { amdGateFactory } from './amd/index.ts'
