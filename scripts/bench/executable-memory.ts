// Benchmark: what `ps` shows of the compiled appliance (its process and its Silero host
// processes) with the offline engines (Silero VAD, pocketsphinx, flite) and two call workers:
// after start, at the peak of N SIPp calls 10 at a time (greeting, a key, hang-up), and after
// the idle release that follows them; when that release came after the last call ended, with
// ENGINE_IDLE_RELEASE_MS = CALL_WORKER_IDLE_MS (equal, as by default); and how long a caller
// waits for the greeting (from its INVITE, and from the 200 OK) on the first call after start,
// on the next one, and on the first call after the release. With --baseline COMMIT the same run is made first on that
// commit's executable, built in the same session, and each figure's ratio (this tree / baseline)
// is printed.
//   bun run scripts/bench/executable-memory.ts [--calls 10] [--idle-ms 10000] [--baseline COMMIT]
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { setupCallTarget } from '../../test/helpers/calls.ts'
import { buildExecutable, runExecutable, type RunningExecutable } from '../../test/helpers/executable.ts'
import { SIPP_PCAP_DIR } from '../../test/helpers/pcap.ts'
import { freePort, scenarioFrom, sipp } from '../../test/helpers/sipp.ts'
import { type GreetingDelay, greetingDelay } from './greeting-call.ts'

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : undefined
}
const CALLS = Number(arg('calls') ?? 10)
const IDLE_MS = Number(arg('idle-ms') ?? 10_000)
const BASELINE = arg('baseline')
const ROOT = join(import.meta.dir, '../..')
const FIXTURES = join(ROOT, 'test/fixtures/sip')

const field = async (pid: number, file: string, name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(await Bun.file(`/proc/${pid}/${file}`).text())![1]) / 1024

interface Memory {
  /** RSS of the appliance process alone, and of its helper processes (the Silero hosts) added up. */
  main: number
  hosts: number
  helpers: number
}

async function memory(pid: number): Promise<Memory> {
  // each thread's children are listed under that thread (call workers start their own hosts)
  const pids: number[] = []
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const list = await Bun.file(`/proc/${pid}/task/${task}/children`).text().catch(() => '')
    pids.push(...list.split(' ').filter(Boolean).map(Number))
  }
  let hosts = 0
  for (const p of pids) hosts += await field(p, 'status', 'VmRSS').catch(() => 0)
  return { main: await field(pid, 'status', 'VmRSS'), hosts, helpers: pids.length }
}

/** Engines in memory (voice_agent_engine_loaded) and call workers running (the series of voice_agent_call_worker_calls). */
async function loadedNow(exe: RunningExecutable): Promise<{ engines: string[]; workers: number }> {
  const families = parsePrometheusTextFormat(await (await fetch(`${exe.url}/metrics`)).text()) as any[]
  const family = (name: string) => families.find((f) => f.name === name)?.metrics ?? []
  return {
    engines: family('voice_agent_engine_loaded').filter((m: any) => Number(m.value) === 1).map((m: any) => m.labels.engine),
    workers: family('voice_agent_call_worker_calls').length,
  }
}

interface Run {
  afterStart: Memory
  peak: Memory
  afterRelease: Memory
  /** Seconds from the end of the last SIPp call until engines unloaded, call workers stopped, no host left. */
  released: { engines: number; workers: number; hosts: number }
  /** The wait for the greeting's first loud packet. */
  greeting: { first: GreetingDelay; loaded: GreetingDelay; afterRelease: GreetingDelay }
}

async function run(built: string): Promise<Run> {
  const exe = await runExecutable(
    { STT_PROVIDER: 'pocketsphinx', VAD_ENGINE: 'silero', LLM_PROVIDER: 'none', CALL_WORKERS: '2', ENGINE_IDLE_RELEASE_MS: String(IDLE_MS), CALL_WORKER_IDLE_MS: String(IDLE_MS), LOG_LEVEL: 'info' },
    [],
    { built },
  )
  try {
    while ((await exe.api('GET', '/ready', { key: null })).body?.status !== 'ready') await Bun.sleep(50) // polling a process we started; not a test
    await Bun.sleep(2000) // the start settles (the engines that load in the background have loaded)
    // an appliance that unloads what it loaded at start does so once all has loaded: read after that (10 s at most)
    for (const until = performance.now() + 10_000; performance.now() < until && (await loadedNow(exe)).engines.length > 0; ) await Bun.sleep(100)
    const afterStart = await memory(exe.pid)
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
    const first = await greetingDelay(exe.sipUdp, target.e164)
    const loaded = await greetingDelay(exe.sipUdp, target.e164)
    const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf.xml'), { PCAP: join(SIPP_PCAP_DIR, 'dtmf_2833_5.pcap'), KEY_AFTER_MS: '200' })
    const peak: Memory = { main: 0, hosts: 0, helpers: 0 }
    const sampler = setInterval(async () => {
      const m = await memory(exe.pid).catch(() => peak)
      // the sample with the most RSS in all, as one `ps` would show it
      if (m.main + m.hosts > peak.main + peak.hosts) Object.assign(peak, m)
    }, 250)
    const p = sipp(['-sf', scenario, `127.0.0.1:${exe.sipUdp}`, '-s', target.e164.slice(1), '-m', String(CALLS), '-l', '10', '-r', '10', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 120)
    const result = await p.exited
    const ended = performance.now()
    clearInterval(sampler)
    if (result.code !== 0) throw new Error(`sipp: ${result.stderr.slice(-500)}`)
    const released = { engines: 0, workers: 0, hosts: 0 }
    while (!released.engines || !released.workers || !released.hosts) {
      const now = await loadedNow(exe)
      const hosts = (await memory(exe.pid)).helpers
      const s = (performance.now() - ended) / 1000
      if (!released.engines && now.engines.length === 0) released.engines = s
      if (!released.workers && now.workers === 0) released.workers = s
      if (!released.hosts && hosts === 0) released.hosts = s
      if (s > 4 * (IDLE_MS / 1000) + 30) throw new Error(`nothing released ${s.toFixed(0)} s after the calls: ${JSON.stringify(now)}, ${hosts} hosts`)
      await Bun.sleep(100) // polling a process's metrics; not a test
    }
    await Bun.sleep(2000) // the threads' exits and the collection after the release settle before /proc is read
    const afterRelease = await memory(exe.pid)
    const afterReleaseGreeting = await greetingDelay(exe.sipUdp, target.e164)
    return { afterStart, peak, afterRelease, released, greeting: { first, loaded, afterRelease: afterReleaseGreeting } }
  } finally {
    await exe.stop()
  }
}

/** The executable of `commit`, built from its tree (git archive) with this checkout's node_modules. */
function buildAt(commit: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-baseline-'))
  const archive = Bun.spawnSync(['sh', '-c', `git archive ${commit} | tar -x -C ${dir}`], { cwd: ROOT, stderr: 'pipe' })
  if (archive.exitCode !== 0) throw new Error(`git archive ${commit}: ${archive.stderr.toString()}`)
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const out = join(dir, 'dist', 'voice-agent')
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', out], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
  if (build.exitCode !== 0) throw new Error(`build of ${commit}: ${build.stderr.toString()}`)
  return out
}

const runs: [string, Run][] = []
if (BASELINE) {
  const exe = buildAt(BASELINE)
  runs.push([`baseline ${BASELINE}`, await run(exe)])
  rmSync(join(exe, '../..'), { recursive: true, force: true })
}
runs.push(['this tree', await run(buildExecutable())])

const mb = (m: Memory) => `${m.main.toFixed(0)} + ${m.hosts.toFixed(0)} (${m.helpers} host${m.helpers === 1 ? '' : 's'}) = ${(m.main + m.hosts).toFixed(0)} MB`
console.log(`executable memory: RSS of voice-agent + its Silero hosts; ${CALLS} calls 10 at a time, 2 call workers, ENGINE_IDLE_RELEASE_MS = CALL_WORKER_IDLE_MS = ${IDLE_MS} ms, loadavg ${loadavg()[0]!.toFixed(2)}`)
for (const [name, r] of runs) {
  console.log(`${name}:`)
  console.log(`  after start              ${mb(r.afterStart)}`)
  console.log(`  peak in calls            ${mb(r.peak)}`)
  console.log(`  after the idle release   ${mb(r.afterRelease)}`)
  console.log(`  released after the last call: engines ${r.released.engines.toFixed(1)} s, call workers ${r.released.workers.toFixed(1)} s, Silero hosts ${r.released.hosts.toFixed(1)} s (configured ${(IDLE_MS / 1000).toFixed(1)} s)`)
  const g = (d: GreetingDelay) => `${d.fromInvite.toFixed(0)} ms (${d.fromAnswer.toFixed(0)} after the 200 OK)`
  console.log(`  greeting after the INVITE: first call ${g(r.greeting.first)}, the next ${g(r.greeting.loaded)}, first call after the release ${g(r.greeting.afterRelease)}`)
}
if (runs.length === 2) {
  const [[, b], [, a]] = runs as [[string, Run], [string, Run]]
  const all = (m: Memory) => m.main + m.hosts
  const ratio = (x: number, y: number) => (x / y).toFixed(2)
  console.log('ratio this tree / baseline:')
  console.log(`  after start ${ratio(all(a.afterStart), all(b.afterStart))}, peak in calls ${ratio(all(a.peak), all(b.peak))}, after the idle release ${ratio(all(a.afterRelease), all(b.afterRelease))}`)
  console.log(`  time to the release: engines ${ratio(a.released.engines, b.released.engines)}, call workers ${ratio(a.released.workers, b.released.workers)}`)
  console.log(`  greeting after the INVITE: first call ${ratio(a.greeting.first.fromInvite, b.greeting.first.fromInvite)}, first call after the release ${ratio(a.greeting.afterRelease.fromInvite, b.greeting.afterRelease.fromInvite)}`)
}
