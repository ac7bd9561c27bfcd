// Platform-added latency of whole call sessions: from the VAD's end-of-speech decision to the
// first agent audio, at 1, 50 and 100 concurrent talking calls, on the main thread (the
// in-process path, CALL_WORKERS=0: the baseline) and in W worker threads each carrying whole
// calls with its own media engine and clock and Silero VAD, flite shared with the main thread
// (as the call workers do). Everything on the platform side is real: RTP over UDP on 127.0.0.1
// through the media engine (jitter buffer, G.711, 8 <-> 16 kHz, recordings), Silero VAD, flite
// TTS in its worker threads, the OpenAI adapter over HTTP. The far side runs in a second
// process: one phone per call talking PCMU and the zero-delay fake OpenAI LLM; STT is a
// scripted engine (no network). Two figures per turn, from the same run:
//   handoff: decision -> the session hands its first frame to CallMedia.play()
//   rtp:     decision -> the phone receives the first agent RTP packet (marker bit)
// Also CPU per talking call (this process: platform, TTS workers, media; and its Silero host processes).
// Run: bun run scripts/bench/voice-session.ts [--workers 0,2] [N ...]   (default 1 50 100)
import { readdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { shareEngines } from '../../src/realtime/voice/index.ts'
import { FliteTts } from '../../src/realtime/voice/tts/index.ts'
import { percentile } from '../../src/realtime/voice/turn/index.ts'
import { CALLER_TURNS, PAUSE_MS } from './voice-script.ts'
import { FarEnd } from './voice-far-end-client.ts'
import { VoiceHost, type TurnFigures } from './voice-session-host.ts'

const args = process.argv.slice(2)
const wi = args.indexOf('--workers')
const modes = wi >= 0 ? args[wi + 1]!.split(',').map(Number) : [0, 2]
const counts = args.filter((_, i) => i !== wi && i !== wi + 1).map(Number).filter((n) => n > 0)
const Ns = counts.length ? counts : [1, 50, 100]
const LEAD_MS = 6000
const PORTS = { min: 34000, max: 35999 }
const utteranceMs = 3000 // upper bound of the caller's sentence; only sizes the run

const far = await FarEnd.start()
// the main thread's flite pool, shared with the worker threads as the appliance shares it
new FliteTts({ voice: 'kal16', sampleRate: 16000, workers: Number(process.env.BENCH_FLITE_WORKERS ?? 2) })

interface Host {
  open(calls: number, rtp: { min: number; max: number }, llmUrl: string): Promise<number[]>
  start(peerPorts: number[], t0Abs: number): Promise<void>
  finish(arrivals: number[][]): Promise<TurnFigures>
  close(): void
}

function workerHost(): Host {
  const worker = new Worker(new URL('./voice-session-host.ts', import.meta.url))
  const waiting = new Map<number, (v: any) => void>()
  let next = 1
  worker.onmessage = (ev: MessageEvent<{ id: number; value: unknown }>) => {
    waiting.get(ev.data.id)?.(ev.data.value)
    waiting.delete(ev.data.id)
  }
  const listening = new Promise((resolve) => waiting.set(0, resolve))
  const ask = async <T>(m: Record<string, unknown>, transfer: MessagePort[] = []): Promise<T> => {
    await listening
    const id = next++
    return new Promise((resolve) => {
      waiting.set(id, resolve)
      worker.postMessage({ id, ...m }, transfer)
    })
  }
  return {
    open: (calls, rtp, llmUrl) => {
      const { ports, transfer } = shareEngines()
      return ask({ cmd: 'open', calls, rtp, llmUrl, flite: ports.flite }, transfer)
    },
    start: (peerPorts, t0Abs) => ask({ cmd: 'start', peerPorts, t0Abs }),
    finish: (arrivals) => ask({ cmd: 'finish', arrivals }),
    close: () => worker.terminate(),
  }
}

function localHost(): Host {
  const h = new VoiceHost()
  return { open: (c, r, u) => h.open(c, r, u), start: (p, t) => h.start(p, t), finish: (a) => h.finish(a), close: () => {} }
}

/** CPU time (ms) of each Silero host process started by this process's threads. */
function helperCpuMs(): Map<number, number> {
  const out = new Map<number, number>()
  for (const task of readdirSync('/proc/self/task')) {
    const children = readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
    for (const pid of children) {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('__silero-host')) continue
        const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
        out.set(pid, (Number(f[11]) + Number(f[12])) * 10)
      } catch {}
    }
  }
  return out
}

async function run(calls: number, workers: number): Promise<TurnFigures & { cpuPerCallPct: number; seconds: number }> {
  const hosts = workers === 0 ? [localHost()] : Array.from({ length: workers }, workerHost)
  const slice = Math.floor((PORTS.max - PORTS.min + 1) / hosts.length / 2) * 2
  const shares = hosts.map((_, i) => Math.floor(calls / hosts.length) + (i < calls % hosts.length ? 1 : 0))
  const ours = await Promise.all(hosts.map((h, i) => h.open(shares[i]!, { min: PORTS.min + i * slice, max: PORTS.min + (i + 1) * slice - 1 }, far.url)))
  // calls start talking at random moments of the first seconds, as real calls would
  const leadMs = calls === 1 ? 500 : LEAD_MS
  const all = ours.flat()
  const peerPorts = await far.open(all, all.map(() => Math.round(Math.random() * leadMs)))
  const t0Abs = performance.timeOrigin + performance.now()
  let at = 0
  const slices = ours.map((o) => [at, (at += o.length)] as const)
  await Promise.all(hosts.map((h, i) => h.start(peerPorts.slice(...slices[i]!), t0Abs)))
  const cpu0 = process.cpuUsage()
  const helpers0 = helperCpuMs()
  const w0 = performance.now()
  far.startTalking()
  // the calls last as long as the callers' script: this is the load window, not a synchronisation
  await new Promise((r) => setTimeout(r, leadMs + CALLER_TURNS * (utteranceMs + PAUSE_MS) + 500))
  const cpu = process.cpuUsage(cpu0)
  const helpers = helperCpuMs()
  const helperMs = [...helpers].reduce((sum, [pid, ms]) => sum + ms - (helpers0.get(pid) ?? 0), 0)
  const seconds = (performance.now() - w0) / 1000
  const arrivals = await far.stop()
  const parts = await Promise.all(hosts.map((h, i) => h.finish(arrivals.slice(...slices[i]!))))
  for (const h of hosts) h.close()
  const f: TurnFigures = { handoff: [], rtp: [], llm: [], tts: [], resumedTalkspurts: 0, unmatched: 0 }
  for (const p of parts) {
    for (const k of ['handoff', 'rtp', 'llm', 'tts'] as const) f[k].push(...p[k])
    f.resumedTalkspurts += p.resumedTalkspurts
    f.unmatched += p.unmatched
  }
  return { ...f, seconds, cpuPerCallPct: ((cpu.user + cpu.system) / 1000 + helperMs) / (seconds * 1000) / calls * 100 }
}

/** One call gives three turns a run: repeat it so that its p99 is not just the worst of three. */
async function runMerged(calls: number, workers: number) {
  const r = await run(calls, workers)
  for (let i = 1; i < (calls === 1 ? 4 : 1); i++) {
    const more = await run(calls, workers)
    for (const k of ['handoff', 'rtp', 'llm', 'tts'] as const) r[k].push(...more[k])
    r.resumedTalkspurts += more.resumedTalkspurts
    r.unmatched += more.unmatched
    r.cpuPerCallPct = (r.cpuPerCallPct * i + more.cpuPerCallPct) / (i + 1)
    r.seconds += more.seconds
  }
  return r
}

const fmt = (xs: number[]) => `p50 ${percentile(xs, 50)?.toFixed(1)} p99 ${percentile(xs, 99)?.toFixed(1)} max ${Math.max(...xs).toFixed(1)} ms`
console.log('## end-of-speech decision -> first agent audio (platform-added, zero-delay fakes), per turn')
console.log(`flite workers ${process.env.BENCH_FLITE_WORKERS ?? 2}; recording ${process.env.BENCH_RECORD === '0' ? 'off' : 'on'}; W = worker threads (0: all on the main thread, the baseline); load average per row`)
for (const calls of Ns) {
  let base = 0
  for (const w of modes) {
    const load0 = loadavg()[0]!.toFixed(2)
    const r = await runMerged(calls, w)
    const p99 = percentile(r.rtp, 99) ?? 0
    if (w === modes[0]) base = p99
    console.log(
      `${calls} calls, W=${w}, ${r.handoff.length} turns (load ${load0} -> ${loadavg()[0]!.toFixed(2)}):\n` +
        `  rtp     (first RTP packet at the phone): ${fmt(r.rtp)}${r.unmatched ? ` (${r.unmatched} unmatched)` : ''}; p99 vs W=${modes[0]}: ${(base ? p99 / base : 1).toFixed(2)}\n` +
        `  handoff (first frame to CallMedia):      ${fmt(r.handoff)}\n` +
        `  within: LLM first token ${fmt(r.llm)}; TTS first audio ${fmt(r.tts)}\n` +
        `  CPU ${r.cpuPerCallPct.toFixed(2)}% of a core per talking call (${r.seconds.toFixed(1)} s); replies resumed after a gap: ${r.resumedTalkspurts}`,
    )
  }
}
FliteTts.shutdown()
await far.exit()
