// At start each offline engine is loaded once, so that /ready shows it works, then unloaded
// until the first call: an appliance waiting for calls holds no flite threads, no pocketsphinx
// model and no Silero host. The first call loads them and is heard, and a call worker started
// while they are unloaded shares the main thread's engine threads instead of loading its own.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { engineShare } from '../../../src/features/calls/workers/index.ts'
import { loadConfig } from '../../../src/platform/config/index.ts'
import { createVoiceEngines } from '../../../src/realtime/voice/index.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'
import { FliteTts } from '../../../src/realtime/voice/tts/index.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { sileroHostsOf } from '../../helpers/children.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { sippKeyCall } from '../../helpers/sipp-call.ts'
import { until, untilAsync } from '../../helpers/until.ts'

const installed = PocketsphinxStt.available()
const test = testNeedingPackage('libpocketsphinx3', installed)
// long enough that nothing a start does could be mistaken for an idle release
const IDLE_MS = 60_000
const ENGINES = { STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', VAD_ENGINE: 'silero', ENGINE_IDLE_RELEASE_MS: IDLE_MS, CALL_WORKER_IDLE_MS: IDLE_MS } as const

async function loaded(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const family = (parsePrometheusTextFormat(text) as any[]).find((f: any) => f.name === 'voice_agent_engine_loaded')
  return Object.fromEntries((family?.metrics ?? []).map((m: any) => [m.labels.engine, Number(m.value)]))
}

describe('the appliance after start', () => {
  let t: TestAppliance
  // hosts of earlier files in the same test process (still closing) are not this appliance's
  let earlier = new Set<number>()

  beforeAll(async () => {
    earlier = new Set(sileroHostsOf(process.pid).map((h) => h.pid))
    // the flite pool is one per process: start from none, so this appliance's idle time applies
    FliteTts.shutdown()
    if (installed) t = await startTestAppliance(ENGINES)
  })

  afterAll(async () => {
    await t?.stop()
    FliteTts.shutdown()
  })

  test('is ready with every offline engine unloaded and no Silero host running; the first call loads them and the agent is heard', async () => {
    const ready = await t.api('GET', '/ready', { key: null })
    expect(ready.status).toBe(200)
    expect(ready.body.status).toBe('ready')
    // they finish loading after the start (flite's threads warm up), and go as soon as all have loaded
    await untilAsync(async () => Object.values(await loaded(t.url)).every((v) => v === 0), 30_000, 'the engines loaded at start to unload', 50)
    expect(await loaded(t.url)).toEqual({ flite: 0, pocketsphinx: 0, silero: 0 })
    expect(sileroHostsOf(process.pid).filter((h) => !earlier.has(h.pid))).toEqual([])
    expect((await t.api('GET', '/ready', { key: null })).body.status).toBe('ready')

    const target = await setupCallTarget(t)
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: { text: 'Hello, this is the first call. Please press a key.' } },
        { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
      ],
      edges: [{ from: 'start', to: 'bye', condition: { type: 'dtmf', digits: '5' } }],
    }
    expect((await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })).status).toBe(200)
    // the key comes 3 s after the answer: ten times the engines' load on a slow, busy machine
    const calling = sippKeyCall(t.appliance.sip.udp!, target.e164, 3000)
    let during: Record<string, number> = {}
    await untilAsync(async () => {
      const calls = (await t.api('GET', '/api/calls')).body.calls ?? []
      if (!calls.some((c: any) => c.status === 'in_progress')) return false
      during = await loaded(t.url)
      return during.silero === 1
    }, 10_000, 'the first call in progress with its engines', 50)
    expect(during).toMatchObject({ flite: 1, pocketsphinx: 1, silero: 1 })
    const sipped = await calling
    expect(sipped.code, `${sipped.stdout}\n${sipped.stderr}`).toBe(0)
    const call = await waitForCall(t, (c) => c.status === 'ended' && c.to === target.e164)
    const agentSaid = call.transcript.filter((i: any) => i.role === 'agent').map((i: any) => i.text)
    expect(agentSaid[0]?.length ?? 0).toBeGreaterThan(0)
    expect(graph.nodes[0]!.config.text.startsWith(agentSaid[0])).toBe(true)
  }, 60_000)
})

describe('the unload after start', () => {
  afterAll(() => FliteTts.shutdown())

  test('gives the memory back: once the engines have gone, JavaScriptCore is asked for its free heap pages and compiled code (Bun.shrink)', async () => {
    FliteTts.shutdown()
    const bun = Bun as unknown as { shrink(): void }
    const shrink = bun.shrink
    let asked = 0
    bun.shrink = () => {
      asked++
      shrink()
    }
    try {
      const voice = await createVoiceEngines(loadConfig({}, ENGINES), { unloadAfterStart: true })
      try {
        await until(() => asked > 0, 30_000, 'the runtime to be asked to shrink')
        expect(voice.loaded()).toEqual({ flite: false, pocketsphinx: false, silero: false })
      } finally {
        await voice.close()
      }
    } finally {
      bun.shrink = shrink
    }
  })
})

describe('a call worker starting while the engines are unloaded', () => {
  afterAll(() => FliteTts.shutdown())

  test("gets ports to the main thread's flite threads and a pocketsphinx decoder thread, which it keeps loaded while it runs", async () => {
    FliteTts.shutdown()
    const config = loadConfig({}, { ...ENGINES, FLITE_WORKERS: 2 })
    const voice = await createVoiceEngines(config, { unloadAfterStart: true })
    try {
      await until(() => !Object.values(voice.loaded()).some(Boolean), 30_000, 'the engines loaded at start to unload')
      expect(voice.loaded('threads')).toEqual({ flite: false, pocketsphinx: false })
      const share = engineShare(voice)
      try {
        // without them the worker would start flite threads and a decoder of its own (about 250 MB)
        expect(share.ports.flite.length).toBe(2)
        expect(share.ports.sphinx).toBeDefined()
        expect(voice.loaded('threads')).toEqual({ flite: true, pocketsphinx: true })
      } finally {
        for (const port of share.transfer) port.close()
        share.release()
      }
    } finally {
      await voice.close()
    }
  })
})
