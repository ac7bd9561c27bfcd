import { expect, test } from 'bun:test'
import { Metrics } from '../../../src/platform/metrics/index.ts'

test('SIP connections refused by a limit are counted by transport and reason in /metrics', async () => {
  const m = new Metrics()
  m.sipConnectionRefused('tcp', 'source_limit')
  m.sipConnectionRefused('tcp', 'source_limit')
  m.sipConnectionRefused('tls', 'handshake_timeout')
  const text = await m.text()
  expect(text).toContain('# TYPE voice_agent_sip_connections_refused_total counter')
  expect(text).toContain('voice_agent_sip_connections_refused_total{transport="tcp",reason="source_limit"} 2')
  expect(text).toContain('voice_agent_sip_connections_refused_total{transport="tls",reason="handshake_timeout"} 1')
})
