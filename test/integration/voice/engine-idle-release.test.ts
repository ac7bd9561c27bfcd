// With no call for ENGINE_IDLE_RELEASE_MS the offline engines (flite's workers, pocketsphinx's
// model, the Silero host process) are unloaded; a call loads them again, keeps them for its whole
// length, and is heard.
import { afterAll, beforeAll, expect } from 'bun:test'
import { join } from 'node:path'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { untilAsync } from '../../helpers/until.ts'
import { FliteTts } from '../../../src/realtime/voice/tts/index.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'

const installed = PocketsphinxStt.available()
const test = testNeedingPackage('libpocketsphinx3', installed)
const FIXTURES = join(import.meta.dir, '../../fixtures/sip')
let t: TestAppliance

beforeAll(async () => {
  // the flite pool is one per process: start from none, so this appliance's idle time applies
  FliteTts.shutdown()
  if (installed) t = await startTestAppliance({ STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', VAD_ENGINE: 'silero', ENGINE_IDLE_RELEASE_MS: 400, CALL_WORKER_IDLE_MS: 300 })
})

afterAll(async () => {
  await t?.stop()
  FliteTts.shutdown()
})

async function loaded(): Promise<Record<string, number>> {
  const text = await (await fetch(`${t.url}/metrics`)).text()
  const family = (parsePrometheusTextFormat(text) as any[]).find((f: any) => f.name === 'voice_agent_engine_loaded')
  return Object.fromEntries((family?.metrics ?? []).map((m: any) => [m.labels.engine, Number(m.value)]))
}

test('idle engines unload, a call loads them again and holds them until it ends, and the agent is heard', async () => {
  await untilAsync(async () => {
    const l = await loaded()
    return l.flite === 0 && l.pocketsphinx === 0 && l.silero === 0
  }, 10_000, 'the engines to unload while idle', 100)

  const target = await setupCallTarget(t)
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello, the engines are back. Please press a key.' } },
      { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
    ],
    edges: [{ from: 'start', to: 'bye', condition: { type: 'dtmf', digits: '5' } }],
  }
  expect((await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })).status).toBe(200)
  // the caller presses 5 after 3 s and hangs up 1.2 s later: longer than the idle time. The greeting
  // starts only once the engines are loaded again; 3 s leaves a slow, busy machine ten times the
  // cold start it needs before the key can cut the greeting short.
  const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf.xml'), { PCAP: join(SIPP_PCAP_DIR, 'dtmf_2833_5.pcap'), KEY_AFTER_MS: '3000' })
  const run = sipp(['-sf', scenario, `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 30)
  // the call's worker reports its Silero host within a tick of starting it
  let heldDuringCall: Record<string, number> = {}
  await untilAsync(async () => {
    const calls = (await t.api('GET', '/api/calls')).body.calls ?? []
    if (!calls.some((c: any) => c.status === 'in_progress')) return false
    heldDuringCall = await loaded()
    return heldDuringCall.silero === 1
  }, 10_000, 'the call to be in progress with its VAD host', 50)
  expect(heldDuringCall).toMatchObject({ flite: 1, pocketsphinx: 1, silero: 1 })
  const sipped = await run.exited
  expect(sipped.code, `${sipped.stdout}\n${sipped.stderr}`).toBe(0)
  const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164)
  const agentSaid = call.transcript.filter((i: any) => i.role === 'agent').map((i: any) => i.text)
  // the greeting was heard: what was spoken of it, before the key or whole, is the first line
  expect(agentSaid[0]?.length ?? 0).toBeGreaterThan(0)
  expect(graph.nodes[0]!.config.text.startsWith(agentSaid[0])).toBe(true)

  await untilAsync(async () => {
    const l = await loaded()
    return l.flite === 0 && l.pocketsphinx === 0 && l.silero === 0
  }, 10_000, 'the engines to unload again after the call', 100)
}, 60_000)
