// The metrics feature's public face; its HTTP routes are metrics.http.ts.
export { type EndedCall, Metrics, type TurnLatencies } from './metrics.ts'
export { isLoopback } from './loopback.ts'
export { sipObserver } from './sip-observer.ts'
