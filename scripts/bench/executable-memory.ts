// Benchmark: resident memory of the compiled appliance with its offline engines (Silero in its
// host processes, pocketsphinx, flite): loaded after start, idle once ENGINE_IDLE_RELEASE_MS has unloaded them,
// at the end of 100 SIPp calls (greeting, a key, hang-up; 10 at a time) and idle again after
// them. The same-run baseline is the same executable with ENGINE_IDLE_RELEASE_MS=0 (engines kept).
//   bun run scripts/bench/executable-memory.ts [--calls 100]
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { loadavg } from 'node:os'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { setupCallTarget } from '../../test/helpers/calls.ts'
import { runExecutable, type RunningExecutable } from '../../test/helpers/executable.ts'
import { SIPP_PCAP_DIR } from '../../test/helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../test/helpers/sipp.ts'

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const CALLS = arg('calls', 100)
const IDLE_MS = 3000
const FIXTURES = join(import.meta.dir, '../../test/fixtures/sip')

const field = async (pid: number, file: string, name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(await Bun.file(`/proc/${pid}/${file}`).text())![1]) / 1024

interface Memory {
  /** RSS of the appliance process and of each helper process (the Silero hosts), added up. */
  rss: number
  /** The same processes' PSS: pages they share (the executable, onnxruntime's library) counted once. */
  pss: number
  /** RSS of the appliance process alone, and how many helper processes there were: what `ps` lists. */
  main: number
  helpers: number
}

async function memory(pid: number): Promise<Memory> {
  // each thread's children are listed under that thread (call workers start their own hosts)
  const pids = [pid]
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const list = await Bun.file(`/proc/${pid}/task/${task}/children`).text().catch(() => '')
    pids.push(...list.split(' ').filter(Boolean).map(Number))
  }
  const m = { rss: 0, pss: 0, main: 0, helpers: pids.length - 1 }
  for (const p of pids) {
    const rss = await field(p, 'status', 'VmRSS').catch(() => 0)
    if (p === pid) m.main = rss
    m.rss += rss
    m.pss += await field(p, 'smaps_rollup', 'Pss').catch(() => 0)
  }
  return m
}

async function enginesLoaded(exe: RunningExecutable): Promise<boolean> {
  const text = await (await fetch(`${exe.url}/metrics`)).text()
  const family = (parsePrometheusTextFormat(text) as any[]).find((f: any) => f.name === 'voice_agent_engine_loaded')
  return (family?.metrics ?? []).some((m: any) => Number(m.value) === 1)
}

/** Polls until the engines are unloaded (or, when they are kept, until the idle time has passed). */
async function idle(exe: RunningExecutable, release: boolean): Promise<void> {
  const start = Date.now()
  while (release ? await enginesLoaded(exe) : Date.now() - start < IDLE_MS + 1000) {
    if (Date.now() - start > 30_000) throw new Error('the engines did not unload')
    await Bun.sleep(200) // polling a process's metrics; not a test
  }
  await Bun.sleep(500) // let the threads' exits settle before reading /proc
}

async function run(release: boolean) {
  const exe = await runExecutable({ STT_PROVIDER: 'pocketsphinx', LLM_PROVIDER: 'none', ENGINE_IDLE_RELEASE_MS: String(release ? IDLE_MS : 0), CALL_WORKER_IDLE_MS: String(release ? IDLE_MS : 0) })
  try {
    // engines keep loading for a moment after the start line (flite's wasm, pocketsphinx's model): read once /ready is ready and 2 s have passed
    while ((await exe.api('GET', '/ready', { key: null })).body?.status !== 'ready') await Bun.sleep(50)
    await Bun.sleep(2000)
    const afterStart = await memory(exe.pid)
    await idle(exe, release)
    const idleStart = await memory(exe.pid)
    const workspaceId = (await exe.api('GET', '/api/workspaces')).body.workspaces[0].id
    const target = await setupCallTarget({ api: exe.api, workspaceId } as any)
    const graph = {
      nodes: [
        { id: 'start', type: 'start', config: { text: 'Hello, thank you for calling. Press any key.' } },
        { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
      ],
      edges: [{ from: 'start', to: 'bye' }],
    }
    await exe.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graph })
    const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf.xml'), { PCAP: join(SIPP_PCAP_DIR, 'dtmf_2833_5.pcap'), KEY_AFTER_MS: '200' })
    const peak = { rss: 0, pss: 0, main: 0, helpers: 0 }
    const sampler = setInterval(async () => {
      const m = await memory(exe.pid)
      // the sample with the most RSS in all, as one `ps` would show it
      if (m.rss > peak.rss) Object.assign(peak, { rss: m.rss, main: m.main, helpers: m.helpers })
      peak.pss = Math.max(peak.pss, m.pss)
    }, 250)
    const p = sipp(['-sf', scenario, `127.0.0.1:${exe.sipUdp}`, '-s', target.e164.slice(1), '-m', String(CALLS), '-l', '10', '-r', '10', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 120)
    const result = await p.exited
    clearInterval(sampler)
    if (result.code !== 0) throw new Error(`sipp: ${result.stderr.slice(-500)}`)
    const afterCalls = await memory(exe.pid)
    await idle(exe, release)
    const idleAfter = await memory(exe.pid)
    return { afterStart, idleStart, peak, afterCalls, idleAfter }
  } finally {
    await exe.stop()
  }
}

const kept = await run(false)
const released = await run(true)
console.log(`executable memory (MB, the process and its Silero host processes: RSS / PSS), ${CALLS} calls 10 at a time, loadavg ${loadavg()[0]!.toFixed(2)}:`)
console.log('                          after start        idle  peak in calls  end of calls  idle after calls')
const cell = (m: Memory, width: number) => `${m.rss.toFixed(0)} / ${m.pss.toFixed(0)}`.padStart(width)
for (const [name, r] of [['engines kept (0)', kept], [`released after ${IDLE_MS} ms`, released]] as const) {
  console.log(`  ${name.padEnd(24)} ${cell(r.afterStart, 11)} ${cell(r.idleStart, 11)} ${cell(r.peak, 14)} ${cell(r.afterCalls, 13)} ${cell(r.idleAfter, 17)}`)
}
const ps = (m: Memory) => `${m.main.toFixed(0)} + ${(m.rss - m.main).toFixed(0)} (${m.helpers} Silero host${m.helpers === 1 ? '' : 's'}) = ${m.rss.toFixed(0)}`
console.log(`what ps shows, released after ${IDLE_MS} ms (RSS MB: appliance + its helper processes):`)
for (const [when, m] of [['after start', released.afterStart], ['idle before calls', released.idleStart], ['peak in calls', released.peak], ['end of calls', released.afterCalls], ['idle after calls', released.idleAfter]] as const) console.log(`  ${when.padEnd(18)} ${ps(m)}`)
console.log(`  ratio released/kept (RSS): idle ${(released.idleStart.rss / kept.idleStart.rss).toFixed(2)}, idle after calls ${(released.idleAfter.rss / kept.idleAfter.rss).toFixed(2)}`)
