// The SRTP packets an encrypted call dropped reach Prometheus by reason when the call ends.
import { expect, test } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { Metrics } from '../../../src/platform/metrics/index.ts'

test('an ended SRTP call adds its dropped packets to voice_agent_srtp_packets_dropped_total by reason; a plain call adds none', async () => {
  const m = new Metrics()
  const rtp = { received: 500, sent: 510, lost: 0, jitterMs: 2 }
  m.callEnded({ direction: 'inbound', outcome: 'completed', turns: [], rtp: { ...rtp, srtp: { authFailures: 3, replays: 2, malformed: 1 } } })
  m.callEnded({ direction: 'outbound', outcome: 'completed', turns: [], rtp: { ...rtp, srtp: { authFailures: 4, replays: 0, malformed: 0 } } })
  m.callEnded({ direction: 'inbound', outcome: 'completed', turns: [], rtp })
  const families = parsePrometheusTextFormat(await m.text()) as { name: string; metrics: { labels?: Record<string, string>; value?: string }[] }[]
  const dropped = families.find((f) => f.name === 'voice_agent_srtp_packets_dropped_total')!
  const byReason = Object.fromEntries(dropped.metrics.map((x) => [x.labels!.reason, Number(x.value)]))
  expect(byReason).toEqual({ auth: 7, replay: 2, malformed: 1 })
  m.stop()
})
