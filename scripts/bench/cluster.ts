// The cluster path on this machine: two appliance node processes on one PostgreSQL database
// behind Kamailio (deploy/kamailio/kamailio.cfg), against one of those nodes called directly,
// in the same run. SIPp places real calls (the agent answers and speaks, every call recorded):
//  1. INVITE-to-200 p50/p99 at a low rate, direct vs through Kamailio (Kamailio's added latency);
//  2. calls per second: 1 s calls at stepped rates, the highest rate held with zero failures;
//  3. concurrent media calls: N calls held together (SIPp echoes the agent's RTP back), failed
//     calls and the CPU the nodes and Kamailio spent per call.
//   bun run scripts/bench/cluster.ts [--step-sec 20] [--rates 10,20,40,80] [--concurrent 50,100,200] [--hold-sec 20]
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { startKamailio, type Kamailio } from '../../test/helpers/kamailio.ts'
import { startPostgres } from '../../test/helpers/postgres.ts'
import { freePort } from '../../test/helpers/sipp.ts'
import { connectNumber, startNodes, type Node } from '../../test/integration/cluster/nodes-setup.ts'

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1]! : def
}
const STEP_SEC = Number(arg('step-sec', '20'))
const RATES = arg('rates', '10,20,40,80').split(',').map(Number)
const CONCURRENT = arg('concurrent', '50,100,200').split(',').map(Number)
const HOLD_SEC = Number(arg('hold-sec', '20'))
const E164 = '+14155550100'
const SCENARIO = join(import.meta.dir, '../../test/fixtures/sip/uac-record-route.xml')
const TICK_HZ = 100 // USER_HZ of /proc/<pid>/stat on Linux
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length

interface Run {
  /** SIPp's own complaint when it placed no call at all (a port taken meanwhile). */
  error: string
  ok: number
  failed: number
  rtts: number[]
  wallMs: number
}

/** SIPp's record-route caller: `calls` calls at `rate`/s, each held `holdMs`, echoing RTP; started again on fresh ports if it could not start. */
async function sipp(target: number, calls: number, rate: number, holdMs: number, proxied: boolean): Promise<Run> {
  const r = await sippOnce(target, calls, rate, holdMs, proxied)
  if (r.ok + r.failed > 0) return r
  console.log(`   (SIPp placed no call: ${r.error.trim().split('\n').slice(-1)[0]}; again on other ports)`)
  return sippOnce(target, calls, rate, holdMs, proxied)
}

async function sippOnce(target: number, calls: number, rate: number, holdMs: number, proxied: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'))
  const scenario = join(dir, 'uac.xml')
  await Bun.write(scenario, readFileSync(SCENARIO, 'utf8').replaceAll('@HOLD_MS@', String(holdMs)).replaceAll('@CHECK_RR@', String(proxied)))
  const started = performance.now()
  const proc = Bun.spawn(
    ['sipp', '-sf', scenario, `127.0.0.1:${target}`, '-s', E164.slice(1), '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort()),
      '-rtp_echo', '-r', String(rate), '-m', String(calls), '-l', String(calls), '-nostdin', '-timeout', `${Math.ceil(calls / rate + holdMs / 1000) + 60}s`,
      '-trace_rtt', '-rtt_freq', '1', '-trace_stat', '-fd', '3600'],
    { cwd: dir, stdout: 'pipe', stderr: 'pipe' },
  )
  const [out, error] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  await proc.exited
  const wallMs = performance.now() - started
  const num = (label: string) => Number(new RegExp(`${label}\\s*\\|\\s*\\d+\\s*\\|\\s*(\\d+)`).exec(out)?.[1] ?? NaN)
  const rttFile = readdirSync(dir).find((f) => f.endsWith('_rtt.csv'))
  const rtts = rttFile
    ? readFileSync(join(dir, rttFile), 'utf8').trim().split('\n').slice(1).map((l) => Number(l.split(';')[1])).filter(Number.isFinite).sort((a, b) => a - b)
    : []
  rmSync(dir, { recursive: true, force: true })
  return { error, ok: num('Successful call') || 0, failed: num('Failed call') || 0, rtts, wallMs }
}

/** CPU seconds used so far by the processes `pids` (user + system). */
function cpuSec(pids: number[]): number {
  let ticks = 0
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {}
  }
  return ticks / TICK_HZ
}

/** Kamailio's main process and its children. */
function kamailioPids(kamailio: Kamailio): number[] {
  const all = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number)
  const parent = (pid: number) => {
    try {
      return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
    } catch {
      return -1
    }
  }
  return all.filter((p) => p === kamailio.pid || parent(p) === kamailio.pid)
}

const pg = await startPostgres()
const database = await pg.createDatabase('bench')
const [a, b] = (await startNodes(database, ['bench-a', 'bench-b'], (i) => ({ RTP_PORT_MIN: String(20000 + 4000 * i), RTP_PORT_MAX: String(23999 + 4000 * i), LOG_LEVEL: 'error' }))) as [Node, Node]
const kamailio = await startKamailio({ nodes: [a.sipUri, b.sipUri], pingIntervalSec: 5 })
await connectNumber(a, E164, `sip:127.0.0.1:${kamailio.port}`)
await Promise.all([kamailio.untilNode(a.sipUri, true), kamailio.untilNode(b.sipUri, true)])
const nodes: Node[] = [a, b]
let stopping = false
for (const n of nodes) {
  void n.proc.exited.then((code) => stopping || console.log(`!! node ${n.nodeId} exited (${code}); its last log lines: ${JSON.stringify(n.logs.slice(-5))}`))
}
const paths = [
  { name: 'one node, direct', port: a.sipPort, proxied: false },
  { name: 'two nodes via Kamailio', port: kamailio.port, proxied: true },
]

console.log(`nodes on PostgreSQL ${database.replace(/\/\/[^@]*@/, '//')}, recordings local; load at start ${loadavg()[0]!.toFixed(2)}`)
console.log('\n1. INVITE -> 200 (SIPp response time), 200 calls at 10/s, 1 s each')
const latency: Record<string, number[]> = {}
// direct before and after the Kamailio run, so drift of the shared machine shows
for (const p of [paths[0]!, paths[1]!, paths[0]!]) {
  const r = await sipp(p.port, 200, 10, 1000, p.proxied)
  latency[p.name] = [...(latency[p.name] ?? []), ...r.rtts].sort((x, y) => x - y)
  console.log(`   ${p.name.padEnd(24)} ok ${r.ok} failed ${r.failed}  mean ${mean(r.rtts).toFixed(2)} ms  p50 ${pct(r.rtts, 50).toFixed(2)} ms  p99 ${pct(r.rtts, 99).toFixed(2)} ms`)
}
const d = latency[paths[0]!.name]!
const k = latency[paths[1]!.name]!
console.log(`   Kamailio adds mean ${(mean(k) - mean(d)).toFixed(2)} ms (ratio ${(mean(k) / mean(d)).toFixed(2)}), p50 ${(pct(k, 50) - pct(d, 50)).toFixed(2)} ms, p99 ${(pct(k, 99) - pct(d, 99)).toFixed(2)} ms; SIPp times in whole ms`)

console.log(`\n2. calls per second: 1 s calls, ${STEP_SEC} s per step, highest rate with zero failed calls`)
const best: Record<string, number> = {}
for (const p of paths) {
  best[p.name] = 0
  for (const rate of RATES) {
    const r = await sipp(p.port, rate * STEP_SEC, rate, 1000, p.proxied)
    console.log(`   ${p.name.padEnd(24)} ${String(rate).padStart(4)}/s  ok ${r.ok} failed ${r.failed}  INVITE->200 p99 ${pct(r.rtts, 99).toFixed(1)} ms  load ${loadavg()[0]!.toFixed(2)}`)
    if (r.failed !== 0 || r.ok !== rate * STEP_SEC) break
    best[p.name] = rate
  }
}
console.log(`   highest: ${paths.map((p) => `${p.name} ${best[p.name]}/s`).join(', ')} (ratio ${(best[paths[1]!.name]! / Math.max(1, best[paths[0]!.name]!)).toFixed(2)})`)

console.log(`\n3. concurrent media calls held ${HOLD_SEC} s (SIPp echoes the agent's RTP), ramped at 20/s`)
for (const n of CONCURRENT) {
  for (const p of paths) {
    const nodeCpu0 = cpuSec(nodes.map((x) => x.proc.pid))
    const kamPids = kamailioPids(kamailio)
    const kamCpu0 = cpuSec(kamPids)
    const r = await sipp(p.port, n, 20, HOLD_SEC * 1000, p.proxied)
    const wallSec = r.wallMs / 1000
    const nodePct = ((cpuSec(nodes.map((x) => x.proc.pid)) - nodeCpu0) / wallSec) * 100
    const kamPct = ((cpuSec(kamPids) - kamCpu0) / wallSec) * 100
    console.log(
      `   N ${String(n).padStart(4)}  ${p.name.padEnd(24)} ok ${r.ok} failed ${r.failed}  nodes CPU ${nodePct.toFixed(0)} % (${(nodePct / n).toFixed(2)} % per call)  Kamailio CPU ${kamPct.toFixed(1)} %  load ${loadavg()[0]!.toFixed(2)}`,
    )
  }
}

stopping = true
await kamailio.stop()
await Promise.all(nodes.map((n) => n.stop()))
pg.stop()
