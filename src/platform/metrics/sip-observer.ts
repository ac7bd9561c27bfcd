// SIP user-agent events as metrics.
import type { Metrics } from './metrics.ts'

export function sipObserver(metrics: Metrics) {
  return (direction: 'in' | 'out', msg: { kind: 'request'; method: string } | { kind: 'response'; status: number; headers: { name: string; value: string }[] }) => {
    if (msg.kind === 'request') return metrics.sip(direction, msg)
    const cseq = msg.headers.find((h) => h.name.toLowerCase() === 'cseq')?.value ?? ''
    metrics.sip(direction, { kind: 'response', status: msg.status, method: cseq.trim().split(/\s+/)[1] ?? 'other' })
  }
}
