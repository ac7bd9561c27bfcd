// N concurrent loopback calls through the real media path: PCMU both ways over UDP on
// 127.0.0.1, jitter buffer, decode + resampling to 16 kHz, the agent's tone resampled and
// encoded back, and a stereo recording per call. The far ends run in a separate process.
// Prints CPU and RSS per call and the outgoing pacing error for each N.
//   bun run scripts/bench/media-calls.ts [N ...] (default 50 100 200 400)
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { tone } from '../../src/media/codec/index.ts'
import { MediaEngine, PacingHistogram, type CallMedia } from '../../src/media/index.ts'
import { CODEC_DEFAULTS } from '../../src/telephony/sdp/index.ts'
import { JsonLinesChild } from './json-lines-child.ts'

const counts = process.argv.slice(2).map(Number).filter((n) => n > 0)
const Ns = counts.length ? counts : [50, 100, 200, 400]
const WARMUP_MS = 3000
const WINDOW_MS = 10_000
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))


async function run(n: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-media-'))
  const engine = new MediaEngine({ RTP_PORT_MIN: 30000, RTP_PORT_MAX: 31999, DATA_DIR: dataDir, RECORD_CALLS: process.env.BENCH_RECORD !== '0' }, { bindHost: '127.0.0.1' })
  await engine.start()
  Bun.gc(true)
  const rssBefore = process.memoryUsage().rss
  const ports = await Promise.all(Array.from({ length: n }, () => engine.allocatePorts()))
  const peer = new JsonLinesChild(join(import.meta.dir, 'media-peer.ts'))
  peer.send({ cmd: 'open', targets: ports.map((p) => p.port) })
  const { ports: peerPorts } = (await peer.next()) as { ports: number[] }
  const agentAudio = tone(440, 16000, 16000 * 60, 6000)
  const calls: CallMedia[] = []
  for (let i = 0; i < n; i++) {
    const call = await engine.startCall(`bench_${i}`, ports[i]!, {
      remoteAddress: '127.0.0.1',
      remotePort: peerPorts[i]!,
      remoteRtcpPort: peerPorts[i]!,
      rtcpMux: true,
      codec: CODEC_DEFAULTS.PCMU,
      telephoneEvent: { payloadType: 101, clockRate: 8000 },
      ptimeMs: 20,
      direction: 'sendrecv',
      remoteHold: false,
    }, { onAudio: () => {} })
    call.play(agentAudio)
    calls.push(call)
  }
  peer.send({ cmd: 'start' })
  await wait(WARMUP_MS)
  for (const c of calls) c.pacingHistogram.reset()
  engine.clock.lateness.reset()
  engine.clock.busy.reset()
  engine.clock.sendPhase.reset()
  peer.send({ cmd: 'reset' })
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await wait(WINDOW_MS)
  const cpu = process.cpuUsage(cpu0)
  const wallMs = performance.now() - t0
  const rssDuring = process.memoryUsage().rss
  const clock = { lateP99: engine.clock.lateness.percentile(99), busyP99: engine.clock.busy.percentile(99), busyMax: engine.clock.busy.maxMs, sendP99: engine.clock.sendPhase.percentile(99) }
  const pacing = new PacingHistogram()
  for (const c of calls) pacing.merge(c.pacingHistogram)
  const received = calls.reduce((s, c) => s + c.stats().rtp.packetsReceived, 0)
  const lost = calls.reduce((s, c) => s + c.stats().jitter.lost + c.stats().jitter.late, 0)
  peer.send({ cmd: 'stop' })
  const far = (await peer.next()) as { sent: number; received: number; gapDeviationP50Ms: number; gapDeviationP99Ms: number }
  await peer.proc.exited
  await engine.stop()
  rmSync(dataDir, { recursive: true, force: true })
  const cpuMs = (cpu.user + cpu.system) / 1000
  return {
    n,
    cpuPerCallPct: (cpuMs / wallMs / n) * 100,
    totalCpuPct: (cpuMs / wallMs) * 100,
    sysPct: (cpu.system / 1000 / wallMs) * 100,
    rssPerCallKiB: (rssDuring - rssBefore) / 1024 / n,
    pacingP50: pacing.percentile(50),
    pacingP99: pacing.percentile(99),
    pacingMax: pacing.maxMs,
    peerGapP99: far.gapDeviationP99Ms,
    lossPct: received ? (lost / (received + lost)) * 100 : 0,
    load: loadavg()[0]!,
    clock,
  }
}

console.log(`media loopback benchmark: ${WARMUP_MS / 1000} s warm-up, ${WINDOW_MS / 1000} s window per N; far ends in a second process`)
console.log('machine: 2 cores shared with other jobs; load average is printed per row')
// A short discarded run first, so JIT code and allocator pools do not count as per-call memory.
await run(10)
console.log('    N  cpu/call  cpu total (sys)  RSS/call  send late p50/p99/max (ms)  peer gap dev p99  lost+late  load1')
for (const n of Ns) {
  const r = await run(n)
  console.log(
    `clock: timer late p99 ${r.clock.lateP99} ms, step busy p99 ${r.clock.busyP99} ms max ${r.clock.busyMax.toFixed(1)} ms, send phase p99 ${r.clock.sendP99} ms\n` + `${String(r.n).padStart(5)} ${r.cpuPerCallPct.toFixed(2).padStart(8)}% ${r.totalCpuPct.toFixed(0).padStart(9)}% (${r.sysPct.toFixed(0).padStart(2)}%) ${r.rssPerCallKiB.toFixed(0).padStart(6)} KiB ${`${r.pacingP50.toFixed(1)} / ${r.pacingP99.toFixed(1)} / ${r.pacingMax.toFixed(1)}`.padStart(27)} ${r.peerGapP99.toFixed(1).padStart(14)} ms ${r.lossPct.toFixed(2).padStart(9)}% ${r.load.toFixed(2).padStart(6)}`,
  )
}
