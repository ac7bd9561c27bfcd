// Benchmark: Silero VAD scored in its host process (what the appliance runs) against the same
// batched onnxruntime session run in this thread (the design before the host), in the same run.
// N streams each score S seconds of audio, all streams' windows of a turn in one batch as the
// appliance does; figures: wall time, CPU time (this process plus the host), and the time per
// batch round trip.
//   bun run scripts/bench/silero-host.ts [--streams 100] [--seconds 10]
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { BUNDLED_SILERO_MODEL } from '../../src/platform/embedded/index.ts'
import { SileroVad } from '../../src/realtime/voice/vad/index.ts'

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const STREAMS = arg('streams', 100)
const SECONDS = arg('seconds', 10)
const WINDOWS = Math.floor((SECONDS * 16000) / 512)

const window = Float32Array.from({ length: 512 }, (_, i) => 0.2 * Math.sin(i / 5) * Math.sin(i / 61))
const ticks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(f[11]) + Number(f[12])) * 10 // utime + stime, ms at 100 Hz
}

async function inThread(): Promise<{ wallMs: number; cpuMs: number }> {
  const ort = await import('onnxruntime-node')
  const session = await ort.InferenceSession.create(readFileSync(BUNDLED_SILERO_MODEL), { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' })
  const sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), [])
  let state = new Float32Array(2 * STREAMS * 128)
  const input = new Float32Array(STREAMS * 576)
  for (let s = 0; s < STREAMS; s++) input.set(window, s * 576 + 64)
  const cpu0 = ticks(process.pid)
  const t0 = performance.now()
  for (let w = 0; w < WINDOWS; w++) {
    const out = await session.run({ input: new ort.Tensor('float32', input.slice(), [STREAMS, 576]), state: new ort.Tensor('float32', state, [2, STREAMS, 128]), sr })
    state = (out.stateN!.data as Float32Array).slice()
    await new Promise((r) => setImmediate(r))
  }
  return { wallMs: performance.now() - t0, cpuMs: ticks(process.pid) - cpu0 }
}

async function inHost(): Promise<{ wallMs: number; cpuMs: number; ownMs: number; hostMs: number }> {
  const vad = await SileroVad.load(BUNDLED_SILERO_MODEL, { idleReleaseMs: 0 })
  const host = (await vad.hostPid())!
  const scorers = Array.from({ length: STREAMS }, () => vad.scorer(16000))
  const own0 = ticks(process.pid)
  const host0 = ticks(host)
  const t0 = performance.now()
  for (let w = 0; w < WINDOWS; w++) await Promise.all(scorers.map((s) => s.score(window)))
  const ownMs = ticks(process.pid) - own0
  const hostMs = ticks(host) - host0
  const result = { wallMs: performance.now() - t0, cpuMs: ownMs + hostMs, ownMs, hostMs }
  vad.close()
  return result
}

await inThread() // warm both paths once
await inHost()
const thread = await inThread()
const host = await inHost()
const per = (ms: number) => ((ms / WINDOWS) * 1000).toFixed(0)
console.log(`Silero VAD, ${STREAMS} streams x ${WINDOWS} windows (${SECONDS} s of audio each), one batch per window, loadavg ${loadavg()[0]!.toFixed(2)}:`)
console.log(`  in this thread (baseline)  wall ${thread.wallMs.toFixed(0)} ms (${per(thread.wallMs)} us a batch), CPU ${thread.cpuMs} ms`)
console.log(`  host process               wall ${host.wallMs.toFixed(0)} ms (${per(host.wallMs)} us a batch), CPU ${host.cpuMs} ms (this process ${host.ownMs}, the host ${host.hostMs})`)
console.log(`  ratio host/thread: wall ${(host.wallMs / thread.wallMs).toFixed(2)}, CPU ${(host.cpuMs / thread.cpuMs).toFixed(2)}; CPU per stream-second ${((host.cpuMs / (STREAMS * SECONDS)) * 1000).toFixed(0)} us vs ${((thread.cpuMs / (STREAMS * SECONDS)) * 1000).toFixed(0)} us`)
