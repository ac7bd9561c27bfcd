// Benchmark: resident memory of the compiled appliance with its offline engines (Silero,
// pocketsphinx, flite): loaded after start, idle once ENGINE_IDLE_RELEASE_MS has unloaded them,
// at the end of 100 SIPp calls (greeting, a key, hang-up; 10 at a time) and idle again after
// them. The same-run baseline is the same executable with ENGINE_IDLE_RELEASE_MS=0 (engines kept).
//   bun run scripts/bench/executable-memory.ts [--calls 100]
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

const rssMb = async (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(await Bun.file(`/proc/${pid}/status`).text())![1]) / 1024

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
    const afterStart = await rssMb(exe.pid)
    await idle(exe, release)
    const idleStart = await rssMb(exe.pid)
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
    const scenario = scenarioFrom(join(FIXTURES, 'uac-dtmf.xml'), { PCAP: join(SIPP_PCAP_DIR, 'dtmf_2833_5.pcap') })
    let peak = 0
    const sampler = setInterval(async () => (peak = Math.max(peak, await rssMb(exe.pid))), 250)
    const p = sipp(['-sf', scenario, `127.0.0.1:${exe.sipUdp}`, '-s', target.e164.slice(1), '-m', String(CALLS), '-l', '10', '-r', '10', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 120)
    const result = await p.exited
    clearInterval(sampler)
    if (result.code !== 0) throw new Error(`sipp: ${result.stderr.slice(-500)}`)
    const afterCalls = await rssMb(exe.pid)
    await idle(exe, release)
    const idleAfter = await rssMb(exe.pid)
    return { afterStart, idleStart, peak, afterCalls, idleAfter }
  } finally {
    await exe.stop()
  }
}

const kept = await run(false)
const released = await run(true)
console.log(`executable memory (RSS, MB), ${CALLS} calls 10 at a time, loadavg ${loadavg()[0]!.toFixed(2)}:`)
console.log('                          after start  idle  peak in calls  end of calls  idle after calls')
for (const [name, r] of [['engines kept (0)', kept], [`released after ${IDLE_MS} ms`, released]] as const) {
  console.log(`  ${name.padEnd(24)} ${r.afterStart.toFixed(0).padStart(11)} ${r.idleStart.toFixed(0).padStart(5)} ${r.peak.toFixed(0).padStart(14)} ${r.afterCalls.toFixed(0).padStart(13)} ${r.idleAfter.toFixed(0).padStart(17)}`)
}
console.log(`  ratio released/kept: idle ${(released.idleStart / kept.idleStart).toFixed(2)}, idle after calls ${(released.idleAfter / kept.idleAfter).toFixed(2)}`)
