// N concurrent loopback calls through the real media path: PCMU both ways over UDP on
// 127.0.0.1, jitter buffer, decode + resampling to 16 kHz, the agent's tone resampled and
// encoded back, and a stereo recording per call. The far ends run in a separate process.
// Each N runs on the main thread (the in-process path, CALL_WORKERS=0: the baseline) and in
// W worker threads, each with its own media engine and clock carrying N/W whole calls, as
// the call workers do. Prints CPU and RSS per call and the outgoing pacing error.
// --srtp: each N and W runs in R rounds (--rounds R, default 3) of one plain RTP run and one SRTP
// run (SDES keys per call, both ways; suite AES_CM_128_HMAC_SHA1_80 or SRTP_SUITE), the order
// alternating from round to round so that neither always runs second. Prints each round, then
// the median of SRTP's CPU per call over RTP's, and the send lateness p99 of both: medians, and
// RTP's own range over the rounds, the noise an unchanged lateness must stay within.
// --idle-peers: the far ends run under SCHED_IDLE, taking only the CPU the calls leave, as phones
// on other machines would (on two cores their own SRTP otherwise competes with the calls); their
// gap figure then measures their starvation, not our pacing, and is not printed.
// --spread-peers: each far end sends at its own phase of the 20 ms period, as independent phones
// do; by default every far end sends at one instant, the worst case for a receiving event loop.
// --prebuilt-peers: the far ends build (and seal) their packets before the start and open what
// came back after the stop, so during the window they cost the same with SRTP as without: their
// own SRTP is work phones on other machines would do, not a share of this machine's cores.
// MEDIA_PACER=realtime|thread|off (default off here): who puts the calls' RTP on the wire, as the
// appliance's setting of that name (docs/media.md, Pacing).
//   bun run scripts/bench/media-calls.ts [--workers 0,1,2] [--srtp [--rounds R]] [--idle-peers] [--spread-peers] [--prebuilt-peers] [N ...] (default 100 200 400 800)
import { loadavg } from 'node:os'
import { PacingHistogram } from '../../src/realtime/media/index.ts'
import type { RtpSrtpKeys } from '../../src/realtime/media/rtp/index.ts'
import { generateInlineKey, isSrtpSuite, type SrtpSuite } from '../../src/realtime/srtp/index.ts'
import { CallsHost, WorkerCallsHost } from './media-calls-host.ts'
import { JsonLinesChild } from './json-lines-child.ts'
import { runQueueWait, threadTimes } from './schedstat.ts'
import { median } from './stats.ts'

const args = process.argv.slice(2)
const wi = args.indexOf('--workers')
const modes = wi >= 0 ? args[wi + 1]!.split(',').map(Number) : [0, 1, 2]
const ri = args.indexOf('--rounds')
const rounds = ri >= 0 ? Number(args[ri + 1]) : 3
if (!(Number.isInteger(rounds) && rounds > 0)) throw new Error('--rounds takes a whole number of rounds')
const counts = args.filter((_, i) => (wi < 0 || (i !== wi && i !== wi + 1)) && (ri < 0 || i !== ri + 1)).map(Number).filter((n) => n > 0)
const withSrtp = args.includes('--srtp')
const idlePeers = args.includes('--idle-peers')
const spreadPeers = args.includes('--spread-peers')
const prebuilt = args.includes('--prebuilt-peers')
const suite = process.env.SRTP_SUITE ?? 'AES_CM_128_HMAC_SHA1_80'
if (!isSrtpSuite(suite)) throw new Error(`SRTP_SUITE ${suite} is not a supported suite`)
const Ns = counts.length ? counts : [100, 200, 400, 800]
const WARMUP_MS = 3000
const WINDOW_MS = 10_000
const PORTS = { min: 30000, max: 33999 }
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms)) // the benchmark's fixed windows, not synchronisation

type Host = { [K in 'open' | 'start' | 'reset' | 'figures' | 'stop']: (...a: Parameters<CallsHost[K]>) => Promise<Awaited<ReturnType<CallsHost[K]>>> }

/** Crossed SDES keys for one call: ours for the host, the mirror image for the far end. */
function callKeys(s: SrtpSuite): { host: RtpSrtpKeys; peer: RtpSrtpKeys } {
  const ours = generateInlineKey(s)
  const theirs = generateInlineKey(s)
  return { host: { suite: s, sendKey: ours, receiveKey: theirs }, peer: { suite: s, sendKey: theirs, receiveKey: ours } }
}

async function run(n: number, workers: number, srtp = false) {
  Bun.gc(true)
  const rssBefore = process.memoryUsage().rss
  const local = (h: CallsHost): Host => ({ open: async (n, r) => h.open(n, r), start: async (p, k) => h.start(p, k), reset: async () => h.reset(), figures: async () => h.figures(), stop: async () => h.stop() })
  const hosts: Host[] = workers === 0 ? [local(new CallsHost())] : Array.from({ length: workers }, () => new WorkerCallsHost())
  const slice = Math.floor((PORTS.max - PORTS.min + 1) / hosts.length / 2) * 2
  const shares = hosts.map((_, i) => Math.floor(n / hosts.length) + (i < n % hosts.length ? 1 : 0))
  const ours = await Promise.all(hosts.map((h, i) => h.open(shares[i]!, { min: PORTS.min + i * slice, max: PORTS.min + (i + 1) * slice - 1 })))
  const keys = srtp ? ours.flat().map(() => callKeys(suite as SrtpSuite)) : undefined
  const peer = new JsonLinesChild(new URL('./media-peer.ts', import.meta.url).pathname, { idle: idlePeers, env: spreadPeers ? { PEER_SPREAD: '1' } : {} })
  peer.send({ cmd: 'open', targets: ours.flat(), keys: keys?.map((k) => k.peer), seconds: prebuilt ? (WARMUP_MS + WINDOW_MS) / 1000 + 5 : 0 })
  const { ports: peerPorts } = (await peer.next()) as { ports: number[] }
  let at = 0
  await Promise.all(
    hosts.map((h, i) => {
      const from = at
      at += ours[i]!.length
      return h.start(peerPorts.slice(from, at), keys?.slice(from, at).map((k) => k.host))
    }),
  )
  peer.send({ cmd: 'start' })
  await wait(WARMUP_MS)
  await Promise.all(hosts.map((h) => h.reset()))
  peer.send({ cmd: 'reset' })
  const cpu0 = process.cpuUsage()
  const sched0 = threadTimes()
  const t0 = performance.now()
  await wait(WINDOW_MS)
  const cpu = process.cpuUsage(cpu0)
  const wallMs = performance.now() - t0
  const runq = runQueueWait(sched0, wallMs)
  const rssDuring = process.memoryUsage().rss
  const figures = await Promise.all(hosts.map((h) => h.figures()))
  const pacing = new PacingHistogram()
  for (const f of figures) pacing.merge(PacingHistogram.from(f.pacing))
  const received = figures.reduce((s, f) => s + f.received, 0)
  const lost = figures.reduce((s, f) => s + f.lost, 0)
  const srtpRefused = figures.reduce((s, f) => s + f.srtpRefused, 0)
  peer.send({ cmd: 'stop' })
  const far = (await peer.next()) as { gapDeviationP99Ms: number; refused: number; received: number; cpuPct: number }
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
    /** A firing's handlers, and its send phase alone: how long the packets of one step wait on one another. */
    clockBusyP99: Math.max(...figures.map((f) => f.clock.busyP99)),
    clockSendP99: Math.max(...figures.map((f) => f.clock.sendP99)),
    /** SRTP packets refused: by the calls, and by the far ends (which open what the calls sent). */
    srtpRefused,
    peerRefused: far.refused,
    peerReceived: far.received,
    /** ms per second the busiest thread, and all threads together, waited for a core. */
    runq,
    /** The far ends' process, over the window. */
    farCpuPct: far.cpuPct,
  }
}

type Result = Awaited<ReturnType<typeof run>>

console.log(`media loopback benchmark: ${WARMUP_MS / 1000} s warm-up, ${WINDOW_MS / 1000} s window per N; far ends in a second process`)
console.log('workers 0 = every call on the main thread (the baseline); W > 0 = W threads, each its own engine and clock')
if (idlePeers) console.log('far ends under SCHED_IDLE (--idle-peers): the peer gap column is their starvation, shown as -')
if (prebuilt) console.log('far ends send packets built before the start and open what came back after the stop (--prebuilt-peers)')
console.log(`pacer: MEDIA_PACER=${process.env.MEDIA_PACER ?? 'off'}`)
console.log(spreadPeers ? 'far ends each at their own phase of the 20 ms period (--spread-peers)' : 'far ends all sending at one instant every 20 ms (the worst case; --spread-peers for independent phones)')
// A short discarded run first, so JIT code and allocator pools do not count as per-call memory.
await run(10, 0)
await run(10, Math.max(...modes, 1))
if (withSrtp) await run(10, 0, true)
if (withSrtp) console.log(`SRTP rows: ${suite}, SDES keys per call; ${rounds} rounds per N and W of an RTP and an SRTP run, in alternating order`)
const media = withSrtp ? ' media' : ''
console.log(`    N  W${media}  cpu/call  cpu total (sys)  RSS/call  send late p50/p99/max (ms)  p99 vs W=0  peer gap p99  lost+late  clock late p99  busy / send p99  load1  runq wait busiest/all (ms/s)  far-end cpu`)
const row = (n: number, w: number, r: Result, baseP99: number, label: string) => {
  const late = r.late.map((x) => x.toFixed(1)).join(' / ')
  console.log(
    `${String(n).padStart(5)} ${String(w).padStart(2)}${label} ${r.cpuPerCallPct.toFixed(3).padStart(8)}% ${r.totalCpuPct.toFixed(0).padStart(9)}% (${r.sysPct.toFixed(0).padStart(2)}%) ${r.rssPerCallKiB.toFixed(0).padStart(6)} KiB ${late.padStart(27)} ${(baseP99 ? r.late[1]! / baseP99 : 1).toFixed(2).padStart(10)} ${(idlePeers ? '-' : r.peerGapP99.toFixed(1)).padStart(10)} ms ${r.lossPct.toFixed(2).padStart(9)}% ${r.clockLateP99.toFixed(1).padStart(11)} ms ${`${r.clockBusyP99.toFixed(1)} / ${r.clockSendP99.toFixed(1)}`.padStart(12)} ms ${r.load.toFixed(2).padStart(6)} ${`${r.runq.busiestMsPerS.toFixed(0)} / ${r.runq.allMsPerS.toFixed(0)}`.padStart(14)} ${r.farCpuPct.toFixed(0).padStart(18)}%`,
  )
}
for (const n of Ns) {
  let baseP99 = 0
  for (const w of modes) {
    if (!withSrtp) {
      const r = await run(n, w)
      if (w === modes[0]) baseP99 = r.late[1]!
      row(n, w, r, baseP99, '')
      continue
    }
    const pairs: { r: Result; s: Result }[] = []
    for (let k = 0; k < rounds; k++) {
      // odd rounds run SRTP first: an order effect (heap, caches, JIT) does not always land on SRTP
      const first = await run(n, w, k % 2 === 1)
      const second = await run(n, w, k % 2 === 0)
      const pair = k % 2 === 1 ? { r: second, s: first } : { r: first, s: second }
      if (w === modes[0] && k === 0) baseP99 = pair.r.late[1]!
      row(n, w, pair.r, baseP99, '   rtp')
      row(n, w, pair.s, baseP99, '  srtp')
      pairs.push(pair)
    }
    const rtpP99 = pairs.map((p) => p.r.late[1]!)
    const refused = pairs.reduce((a, p) => a + p.s.srtpRefused, 0)
    const farRefused = pairs.reduce((a, p) => a + p.s.peerRefused, 0)
    const farTotal = pairs.reduce((a, p) => a + p.s.peerReceived + p.s.peerRefused, 0)
    console.log(
      `          srtp/rtp over ${rounds} rounds: cpu/call x${median(pairs.map((p) => p.s.cpuPerCallPct / p.r.cpuPerCallPct)).toFixed(2)} (rounds ${pairs.map((p) => (p.s.cpuPerCallPct / p.r.cpuPerCallPct).toFixed(2)).join(', ')}), ` +
        `send late p99 median ${median(rtpP99).toFixed(1)} -> ${median(pairs.map((p) => p.s.late[1]!)).toFixed(1)} ms (rtp range ${Math.min(...rtpP99).toFixed(1)}-${Math.max(...rtpP99).toFixed(1)}); ` +
        `refused by the calls ${refused}, by the far ends ${farRefused} of ${farTotal}`,
    )
  }
}
