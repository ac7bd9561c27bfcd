// The idle release comes ENGINE_IDLE_RELEASE_MS after the last call, not a second idle period
// later: the call workers (CALL_WORKER_IDLE_MS, the same time, as by default) stop then, and the
// engine threads they shared go with them, each with its log line. The next call is heard.
import { afterAll, beforeAll, expect } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { sileroHostsOf } from '../../helpers/children.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { runExecutable, type RunningExecutable } from '../../helpers/executable.ts'
import { sippKeyCall } from '../../helpers/sipp-call.ts'
import { until, untilAsync } from '../../helpers/until.ts'

const installed = PocketsphinxStt.available()
const test = testNeedingPackage('libpocketsphinx3', installed)
// the bound below leaves a whole idle time of slack: timers late by seconds on a busy machine still pass
const IDLE_MS = 3000
let exe: RunningExecutable
let target: CallSetup

beforeAll(async () => {
  if (!installed) return
  // the executable: its call workers' log lines come out with the rest, and its Silero hosts are its own children
  exe = await runExecutable({
    STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', VAD_ENGINE: 'silero', ENGINE_IDLE_RELEASE_MS: String(IDLE_MS), CALL_WORKER_IDLE_MS: String(IDLE_MS), CALL_WORKERS: '2', LOG_LEVEL: 'info',
  })
  const workspaceId = (await exe.api('GET', '/api/workspaces')).body.workspaces[0].id
  target = await setupCallTarget({ api: exe.api, workspaceId } as any)
  const graph = {
    nodes: [
      { id: 'start', type: 'start', config: { text: 'Hello, thank you for calling. Please press a key.' } },
      { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
    ],
    edges: [{ from: 'start', to: 'bye', condition: { type: 'dtmf', digits: '5' } }],
  }
  expect((await exe.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })).status).toBe(200)
}, 120_000)

afterAll(async () => {
  await exe?.stop()
})

async function metrics(): Promise<{ engines: Record<string, number>; workers: number }> {
  const families = parsePrometheusTextFormat(await (await fetch(`${exe.url}/metrics`)).text()) as any[]
  const family = (name: string) => families.find((f: any) => f.name === name)?.metrics ?? []
  return {
    engines: Object.fromEntries(family('voice_agent_engine_loaded').map((m: any) => [m.labels.engine, Number(m.value)])),
    workers: family('voice_agent_call_worker_calls').length,
  }
}

/** A call heard to its end: the greeting, the key 2 s after the answer, the goodbye. */
async function callHeard(): Promise<any> {
  const before = (await exe.api('GET', '/api/calls')).body.calls.map((c: any) => c.id)
  const sipped = await sippKeyCall(exe.sipUdp, target.e164, 2000)
  expect(sipped.code, `${sipped.stdout}\n${sipped.stderr}`).toBe(0)
  const call = await waitForCall({ api: exe.api } as any, (c) => c.status === 'ended' && !before.includes(c.id))
  expect(call.transcript.find((i: any) => i.role === 'agent')?.text.length ?? 0).toBeGreaterThan(0)
  return call
}

/** The main thread's line (each call worker logs the release of its own Silero host too). */
const line = (msg: RegExp, after: number) => exe.logs.find((l) => msg.test(l.msg) && l.component === 'voice' && l.time >= after)

test('engines and call workers are released ENGINE_IDLE_RELEASE_MS after the last call, each with a log line, and the next call is heard', async () => {
  const call = await callHeard()
  const ended = exe.logs.find((l) => l.msg === 'call ended' && l.callId === call.id)
  expect(ended).toBeDefined()
  await until(() => line(/^voice engines released/, ended.time) !== undefined, 6 * IDLE_MS, "the log line of the engines' idle release")
  const released = line(/^voice engines released/, ended.time)
  expect(released).toMatchObject({ component: 'voice', idleMs: IDLE_MS })
  expect([...released.engines].sort()).toEqual(['flite', 'pocketsphinx'])
  // at the configured time: not before it, and not after a second idle period
  expect(released.time - ended.time).toBeGreaterThanOrEqual(0.8 * IDLE_MS)
  expect(released.time - ended.time).toBeLessThan(2 * IDLE_MS)
  const stopped = exe.logs.filter((l) => l.msg.startsWith('call worker stopped') && l.time >= ended.time)
  expect(stopped.length).toBeGreaterThanOrEqual(1)
  for (const s of stopped) {
    expect(s).toMatchObject({ component: 'call-workers', idleMs: IDLE_MS })
    expect(s.time - ended.time).toBeGreaterThanOrEqual(0.8 * IDLE_MS)
    expect(s.time - ended.time).toBeLessThan(2 * IDLE_MS)
  }
  // what the release left: no engine in memory, no call worker, no Silero host
  await untilAsync(async () => {
    const now = await metrics()
    return sileroHostsOf(exe.pid).length === 0 && now.workers === 0 && Object.values(now.engines).every((v) => v === 0)
  }, 10_000, 'every engine, worker and host gone', 50)
  // a worker stopping took none of the engine threads it shared for lost
  expect(exe.logs.filter((l) => /shared flite thread was lost/.test(l.msg))).toEqual([])

  await callHeard()
}, 60_000)
