// Pacing: RTP packets prepared ahead by a media thread and sent at their instant by a thread of
// their own, at real-time priority where the process may ask for it.
export { Pacer, type PacedOwner, type PacerOptions } from './pacer.ts'
export { sockaddrOf } from './sockaddr.ts'
export type { PacerMode } from './ring.ts'
