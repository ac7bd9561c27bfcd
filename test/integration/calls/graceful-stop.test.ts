// Stopping the appliance with a call in progress: new INVITEs get 503 (with Retry-After) at once,
// the call in progress goes on to its natural end within CALL_DRAIN_MS and is recorded.
import { expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { startTestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { header } from '../../../src/realtime/telephony/sip/index.ts'

test('on stop, a new call and an OPTIONS probe get 503 while the call in progress finishes and is recorded as completed', async () => {
  const t = await startTestAppliance({ CALL_DRAIN_MS: 10_000, })
  const target = await setupCallTarget(t, { agent: { welcome: { mode: 'user_speaks_first' } } })
  const sipPort = t.appliance.sip.udp!
  const first = sipp(['-sn', 'uac', `127.0.0.1:${sipPort}`, '-s', target.e164.slice(1), '-m', '1', '-d', '2500', '-i', '127.0.0.1', '-p', String(await freePort())], 30)
  const up = await waitForCall(t, (c) => c.status === 'in_progress')

  const stopped = t.appliance.stop()
  const second = await sipp(['-sn', 'uac', `127.0.0.1:${sipPort}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort())], 10).exited
  expect(second.code).not.toBe(0)
  expect(second.stderr).toContain("received 'SIP/2.0 503")
  // a proxy's OPTIONS probe (Kamailio's dispatcher) is told the same, so it takes this node out
  const probe = await SipPeer.udp(sipPort)
  probe.send(
    `OPTIONS sip:127.0.0.1:${sipPort} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${probe.port};branch=z9hG4bKprobe\r\nFrom: <sip:dispatcher@localhost>;tag=d\r\n` +
      `To: <sip:127.0.0.1:${sipPort}>\r\nCall-ID: probe-while-stopping\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n`,
  )
  const answer = await probe.waitFor((m) => m.kind === 'response' && header(m, 'call-id') === 'probe-while-stopping')
  expect(answer.kind === 'response' && answer.status).toBe(503)
  probe.close()

  const run = await first.exited
  expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
  await stopped

  const again = await startTestAppliance({}, t.dataDir)
  try {
    const calls = (await again.api('GET', '/api/calls?limit=100')).body.calls as any[]
    expect(calls.length).toBe(1)
    expect(calls[0]).toMatchObject({ id: up.id, status: 'ended', outcome: 'completed', endReason: 'caller_hangup' })
  } finally {
    await again.stop()
    rmSync(t.dataDir, { recursive: true, force: true })
  }
}, 40_000)
