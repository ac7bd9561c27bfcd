// One start of the soak of issue 23 ("a call must never be silent"): a fresh start of the built
// executable, on an empty or a warm extraction cache, waits for /ready, then takes one SIPp
// uac_pcap call (the caller speaks from about 1 s in) to a workflow agent that speaks first and
// has no LLM. What the start reports says whether the agent was audible in the call's recording.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { setupCallTarget, waitForCall } from './calls.ts'
import { runExecutable } from './executable.ts'
import { readStereoWav } from './media-call.ts'
import { SIPP_PCAP_DIR } from './pcap.ts'
import { freePort, sipp } from './sipp.ts'
import { loudWindows } from './speech.ts'
import { untilAsync } from './until.ts'

export const SOAK_WELCOME = 'Hello, you have reached the offline receptionist. How can I help you today?'

/** 100 ms windows of the agent's channel louder than this count as the agent being heard. */
const LOUD_DBFS = -35
/** At least this many such windows (0.5 s of speech): a click or comfort noise is not the agent. */
export const AUDIBLE_WINDOWS = 5

export interface SoakStart {
  /** The extraction cache was empty at this start. */
  cold: boolean
  /** From exec to /ready answering ready. */
  readyMs: number
  /** The whole start: exec, the call, and stop. */
  totalMs: number
  /** 100 ms windows of the agent's recorded channel louder than -35 dBFS. */
  agentLoudWindows: number
  audible: boolean
  ttsDuration: number
  outcome: string
  endReason: string | null
  /** What the session reported of the welcome (call_welcome lines; none when it was spoken whole). */
  welcome: string
  /** call_agent_silent warnings the executable logged. */
  silentLines: number
  /** voice_agent_calls_agent_silent_total at the end of the call. */
  silentCounter: number
  sippCode: number
}

/** SIPp's built-in uac_pcap (g711a.pcap, ~7 s of speech from about 1 s in, then key 1 and BYE), with Debian's pcap folder. */
function uacPcapScenario(): string {
  const xml = Bun.spawnSync(['sipp', '-sd', 'uac_pcap']).stdout.toString().replaceAll('pcap/', `${SIPP_PCAP_DIR}/`)
  const path = join(mkdtempSync(join(tmpdir(), 'uac-pcap-')), 'uac_pcap.xml')
  writeFileSync(path, xml)
  return path
}

async function silentCounter(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const family = (parsePrometheusTextFormat(text) as any[]).find((f: any) => f.name === 'voice_agent_calls_agent_silent_total')
  return (family?.metrics ?? []).reduce((n: number, m: any) => n + Number(m.value), 0)
}

/**
 * One fresh start with `cacheDir` as XDG_CACHE_HOME (where the embedded files are extracted) and
 * one call. `cold` only labels the start: the caller decides whether the folder is empty.
 */
export async function soakStart(cacheDir: string, cold: boolean, env: Record<string, string> = {}): Promise<SoakStart> {
  const t0 = performance.now()
  const exe = await runExecutable({ XDG_CACHE_HOME: cacheDir, LLM_PROVIDER: 'none', LOG_LEVEL: 'info', ...env })
  const scenario = uacPcapScenario()
  try {
    await untilAsync(async () => (await exe.api('GET', '/ready', { key: null })).body?.status === 'ready', 60_000, '/ready to say ready', 50)
    const readyMs = performance.now() - t0
    const workspaceId = (await exe.api('GET', '/api/workspaces')).body.workspaces[0].id
    const target = await setupCallTarget({ api: exe.api, workspaceId } as any, {
      agent: { welcome: { mode: 'agent_speaks_first', message: SOAK_WELCOME } },
    })
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: { text: SOAK_WELCOME } },
        { id: 'menu', type: 'say', config: { text: 'Press 9 to leave a message.' } },
        { id: 'bye', type: 'end', config: { text: 'Thank you for calling. Goodbye.' } },
      ],
      edges: [
        { from: 'start', to: 'menu' },
        { from: 'menu', to: 'bye', condition: { type: 'dtmf', digits: '9' } },
      ],
    }
    const put = await exe.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })
    if (put.status !== 200) throw new Error(`workflow: ${JSON.stringify(put.body)}`)
    const args = ['-sf', scenario, `127.0.0.1:${exe.sipUdp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())]
    const run = await sipp(args, 60).exited
    const call = await waitForCall({ api: exe.api } as any, (c) => c.status === 'ended' && c.to === target.e164, 60_000)
    // the end line and the silent-call check are written as the call is finalised
    await untilAsync(async () => exe.logs.some((l) => l.event === 'call_end' && l.callId === call.id), 30_000, 'the call end line', 50)
    const { right } = readStereoWav(join(exe.dataDir, 'recordings', `${call.id}.wav`))
    const loud = loudWindows(right, 1600, LOUD_DBFS)
    const welcome = exe.logs.find((l) => l.event === 'call_welcome' && l.callId === call.id)?.welcome ?? 'spoken'
    return {
      cold,
      readyMs,
      totalMs: 0,
      agentLoudWindows: loud,
      audible: loud >= AUDIBLE_WINDOWS,
      ttsDuration: call.metrics?.ttsDuration ?? 0,
      outcome: call.outcome,
      endReason: call.endReason,
      welcome,
      silentLines: exe.logs.filter((l) => l.event === 'call_agent_silent').length,
      silentCounter: await silentCounter(exe.url),
      sippCode: run.code,
    }
  } finally {
    rmSync(join(scenario, '..'), { recursive: true, force: true })
    await exe.stop()
  }
}

/** Runs `starts` starts, every other one on an empty cache, the rest on one shared cache (warm after the first start); `each` sees every result. */
export async function soak(starts: number, each: (r: SoakStart, i: number) => void = () => {}, env: Record<string, string> = {}): Promise<SoakStart[]> {
  const shared = mkdtempSync(join(tmpdir(), 'voice-agent-cache-warm-'))
  const results: SoakStart[] = []
  try {
    for (let i = 0; i < starts; i++) {
      // the first start fills the shared cache (cold); then odd starts find it warm, even ones get an empty folder
      const cold = i % 2 === 0
      const dir = i === 0 ? shared : cold ? mkdtempSync(join(tmpdir(), 'voice-agent-cache-')) : shared
      const t0 = performance.now()
      try {
        const r = await soakStart(dir, cold, env)
        r.totalMs = performance.now() - t0
        results.push(r)
        each(r, i)
      } finally {
        if (dir !== shared) rmSync(dir, { recursive: true, force: true })
      }
    }
  } finally {
    rmSync(shared, { recursive: true, force: true })
  }
  return results
}
