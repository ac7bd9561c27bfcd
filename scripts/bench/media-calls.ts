// N concurrent loopback calls through the real media path: PCMU both ways over UDP on
// 127.0.0.1, jitter buffer, decode + resampling to 16 kHz, the agent's tone resampled and
// encoded back, and a stereo recording per call. The far ends run in a separate process.
// Each N runs on the main thread (the in-process path, CALL_WORKERS=0: the baseline) and in
// W worker threads, each with its own media engine and clock carrying N/W whole calls, as
// the call workers do. Prints CPU and RSS per call and the outgoing pacing error.
//   bun run scripts/bench/media-calls.ts [--workers 0,1,2] [N ...] (default 100 200 400 800)
import { loadavg } from 'node:os'
import { PacingHistogram } from '../../src/realtime/media/index.ts'
import { CallsHost, WorkerCallsHost } from './media-calls-host.ts'
import { JsonLinesChild } from './json-lines-child.ts'

const args = process.argv.slice(2)
const wi = args.indexOf('--workers')
const modes = wi >= 0 ? args[wi + 1]!.split(',').map(Number) : [0, 1, 2]
const counts = args.filter((_, i) => i !== wi && i !== wi + 1).map(Number).filter((n) => n > 0)
const Ns = counts.length ? counts : [100, 200, 400, 800]
const WARMUP_MS = 3000
const WINDOW_MS = 10_000
const PORTS = { min: 30000, max: 33999 }
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms)) // the benchmark's fixed windows, not synchronisation

type Host = { [K in 'open' | 'start' | 'reset' | 'figures' | 'stop']: (...a: Parameters<CallsHost[K]>) => Promise<Awaited<ReturnType<CallsHost[K]>>> }

async function run(n: number, workers: number) {
  Bun.gc(true)
  const rssBefore = process.memoryUsage().rss
  const local = (h: CallsHost): Host => ({ open: async (n, r) => h.open(n, r), start: async (p) => h.start(p), reset: async () => h.reset(), figures: async () => h.figures(), stop: async () => h.stop() })
  const hosts: Host[] = workers === 0 ? [local(new CallsHost())] : Array.from({ length: workers }, () => new WorkerCallsHost())
  const slice = Math.floor((PORTS.max - PORTS.min + 1) / hosts.length / 2) * 2
  const shares = hosts.map((_, i) => Math.floor(n / hosts.length) + (i < n % hosts.length ? 1 : 0))
  const ours = await Promise.all(hosts.map((h, i) => h.open(shares[i]!, { min: PORTS.min + i * slice, max: PORTS.min + (i + 1) * slice - 1 })))
  const peer = new JsonLinesChild(new URL('./media-peer.ts', import.meta.url).pathname)
  peer.send({ cmd: 'open', targets: ours.flat() })
  const { ports: peerPorts } = (await peer.next()) as { ports: number[] }
  let at = 0
  await Promise.all(hosts.map((h, i) => h.start(peerPorts.slice(at, (at += ours[i]!.length)))))
  peer.send({ cmd: 'start' })
  await wait(WARMUP_MS)
  await Promise.all(hosts.map((h) => h.reset()))
  peer.send({ cmd: 'reset' })
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await wait(WINDOW_MS)
  const cpu = process.cpuUsage(cpu0)
  const wallMs = performance.now() - t0
  const rssDuring = process.memoryUsage().rss
  const figures = await Promise.all(hosts.map((h) => h.figures()))
  const pacing = new PacingHistogram()
  for (const f of figures) pacing.merge(PacingHistogram.from(f.pacing))
  const received = figures.reduce((s, f) => s + f.received, 0)
  const lost = figures.reduce((s, f) => s + f.lost, 0)
  peer.send({ cmd: 'stop' })
  const far = (await peer.next()) as { gapDeviationP99Ms: number }
  await peer.proc.exited
  await Promise.all(hosts.map((h) => h.stop()))
  const cpuMs = (cpu.user + cpu.system) / 1000
  return {
    cpuPerCallPct: (cpuMs / wallMs / n) * 100,
    totalCpuPct: (cpuMs / wallMs) * 100,
    sysPct: (cpu.system / 1000 / wallMs) * 100,
    rssPerCallKiB: (rssDuring - rssBefore) / 1024 / n,
    late: [pacing.percentile(50), pacing.percentile(99), pacing.maxMs],
    peerGapP99: far.gapDeviationP99Ms,
    lossPct: received ? (lost / (received + lost)) * 100 : 0,
    load: loadavg()[0]!,
    clockLateP99: Math.max(...figures.map((f) => f.clock.lateP99)),
  }
}

console.log(`media loopback benchmark: ${WARMUP_MS / 1000} s warm-up, ${WINDOW_MS / 1000} s window per N; far ends in a second process`)
console.log('workers 0 = every call on the main thread (the baseline); W > 0 = W threads, each its own engine and clock')
// A short discarded run first, so JIT code and allocator pools do not count as per-call memory.
await run(10, 0)
await run(10, Math.max(...modes, 1))
console.log('    N  W  cpu/call  cpu total (sys)  RSS/call  send late p50/p99/max (ms)  p99 vs W=0  peer gap p99  lost+late  clock late p99  load1')
for (const n of Ns) {
  let baseP99 = 0
  for (const w of modes) {
    const r = await run(n, w)
    if (w === modes[0]) baseP99 = r.late[1]!
    const late = r.late.map((x) => x.toFixed(1)).join(' / ')
    console.log(
      `${String(n).padStart(5)} ${String(w).padStart(2)} ${r.cpuPerCallPct.toFixed(2).padStart(8)}% ${r.totalCpuPct.toFixed(0).padStart(9)}% (${r.sysPct.toFixed(0).padStart(2)}%) ${r.rssPerCallKiB.toFixed(0).padStart(6)} KiB ${late.padStart(27)} ${(baseP99 ? r.late[1]! / baseP99 : 1).toFixed(2).padStart(10)} ${r.peerGapP99.toFixed(1).padStart(10)} ms ${r.lossPct.toFixed(2).padStart(9)}% ${r.clockLateP99.toFixed(1).padStart(11)} ms ${r.load.toFixed(2).padStart(6)}`,
    )
  }
}
