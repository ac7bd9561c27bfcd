// WebRTC stacks compared by CPU per call: werift (pure TypeScript, the repo's dependency),
// node-datachannel (libdatachannel, native) and @roamhq/wrtc (libwebrtc, native). For each stack
// and each N, a child process (scripts/bench/webrtc-stacks/child.ts) sets up N peer pairs on
// 127.0.0.1, one sendrecv Opus audio track each, 50 packets/s each way over DTLS-SRTP, and
// measures process CPU over T seconds once all pairs are connected. Both ends of a pair are in
// the child, so "CPU per pair" is the cost of both ends of one call. Stacks run one at a time.
// @roamhq/wrtc encodes Opus itself (from 10 ms PCM frames) and decodes what it receives, so its
// figure includes an Opus encoder and decoder per end; the other two only move RTP packets.
//   bun run scripts/bench/webrtc-stacks.ts [--seconds T] [--stacks werift,node-datachannel,wrtc] [N ...]
//   (default N = 1 20 50, T = 10). node-datachannel and @roamhq/wrtc are not dependencies of the
//   repo: they are loaded from $WEBRTC_STACKS_DIR (default /tmp/wt), installed there with
//   npm i --prefix /tmp/wt node-datachannel@0.33.4 @roamhq/wrtc@0.10.0
// A native stack that does not load under Bun runs under `node` (the child bundled for Node into
// a temporary folder); WEBRTC_STACKS_RUNTIME=node forces that for the native stacks.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'

const args = process.argv.slice(2)
const option = (name: string) => {
  const i = args.indexOf(name)
  return i >= 0 ? args.splice(i, 2)[1] : undefined
}
const T = Number(option('--seconds') ?? 10)
const stacks = (option('--stacks') ?? 'werift,node-datachannel,wrtc').split(',')
const Ns = args.length ? args.map(Number) : [1, 20, 50]
if (!(T > 0) || Ns.some((n) => !(Number.isInteger(n) && n > 0))) throw new Error('usage: webrtc-stacks.ts [--seconds T] [--stacks a,b] [N ...]')
const dir = process.env.WEBRTC_STACKS_DIR ?? '/tmp/wt'
const CHILD = join(import.meta.dir, 'webrtc-stacks', 'child.ts')
const PACKAGES: Record<string, string> = { 'node-datachannel': 'node-datachannel', wrtc: '@roamhq/wrtc' }

interface Result {
  stack: string; runtime: string; N: number; T: number; cpuMsPerPairSecond: number; cpuPercent: number
  connectP50: number; connectMax: number; sent: number; received: number; maxLateMs: number; rssMb: number
}

/** Runs one child; the result, or the reason there is none (its last lines of output). */
async function runChild(cmd: string[], N: number): Promise<Result | string> {
  const proc = Bun.spawn(cmd, { env: { ...process.env, WEBRTC_STACKS_DIR: dir }, stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill(), (60 + T + 2 * N) * 1000)
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  clearTimeout(timer)
  const line = out.split('\n').find((l) => l.startsWith('RESULT '))
  if (line) return JSON.parse(line.slice(7)) as Result
  return `exit ${code}: ${(err + out).trim().split('\n').slice(-3).join(' | ')}`
}

let nodeChild: string | undefined // the child bundled for node, made when first needed
async function childForNode(): Promise<string> {
  if (nodeChild) return nodeChild
  const out = mkdtempSync(join(tmpdir(), 'webrtc-stacks-'))
  process.on('exit', () => rmSync(out, { recursive: true, force: true }))
  const build = Bun.spawnSync([process.execPath, 'build', CHILD, '--target=node', '--outfile', join(out, 'child.mjs')], { stderr: 'pipe' })
  if (!build.success) throw new Error(`bundling the child for node failed: ${build.stderr}`)
  return (nodeChild = join(out, 'child.mjs'))
}

const runtimes = new Map<string, 'bun' | 'node'>() // per stack, decided at its first run
async function run(stack: string, N: number): Promise<Result | string> {
  const useNode = runtimes.get(stack) === 'node' || (stack !== 'werift' && process.env.WEBRTC_STACKS_RUNTIME === 'node')
  if (!useNode) {
    const r = await runChild([process.execPath, CHILD, stack, String(N), String(T)], N)
    if (typeof r !== 'string' || stack === 'werift' || runtimes.has(stack)) return r
    console.log(`  ${stack} failed under bun (${r}); running it under node`)
  }
  runtimes.set(stack, 'node')
  return runChild(['node', await childForNode(), stack, String(N), String(T)], N)
}

const load = loadavg()[0]!
console.log(`WebRTC stacks: N = ${Ns.join(', ')} pairs, ${T} s measured after ${Number(process.env.WARMUP_MS ?? 1000) / 1000} s of warm-up; load average ${load.toFixed(2)}${load > 1.5 ? ' (busy machine: figures are noisy)' : ''}`)
const active = stacks.filter((s) => {
  if (!(s in PACKAGES) && s !== 'werift') throw new Error(`unknown stack ${s}`)
  if (s === 'werift' || existsSync(join(dir, 'node_modules', PACKAGES[s]!, 'package.json'))) return true
  console.log(`skipping ${s}: ${PACKAGES[s]} is not in ${dir}/node_modules; install it with\n  npm i --prefix ${dir} node-datachannel@0.33.4 @roamhq/wrtc@0.10.0\n  (or set WEBRTC_STACKS_DIR to where it is)`)
  return false
})

// The floor: a bun child with the same clock and no peers; "net" is a pair's figure less its share of it.
const idle = await runChild([process.execPath, CHILD, 'idle', '1', String(T)], 1)
const floor = typeof idle === 'string' ? 0 : idle.cpuMsPerPairSecond
console.log(`floor (bun child, clock only, no peers): ${floor.toFixed(2)} ms CPU per second`)

const rows: string[][] = [['stack', 'runtime', 'N', 'CPU ms/pair-s', 'net', 'vs werift', 'CPU %', 'connect p50/max ms', 'sent', 'lost %', 'RSS MB', 'late ms']]
const fixed = (x: number, d = 1) => x.toFixed(d)
const totals = new Map<string, { N: number; msPerS: number }[]>() // per stack: process CPU ms per second at each N
for (const N of Ns) {
  let werift: number | undefined
  for (const stack of active) {
    const r = await run(stack, N)
    if (typeof r === 'string') {
      rows.push([stack, '-', String(N), `failed: ${r}`])
      console.log(`  ${stack} N=${N} failed: ${r}`)
      continue
    }
    if (stack === 'werift') werift = r.cpuMsPerPairSecond
    totals.set(stack, [...(totals.get(stack) ?? []), { N, msPerS: r.cpuMsPerPairSecond * N }])
    const lost = r.sent ? (100 * (r.sent - r.received)) / r.sent : 100
    const net = r.runtime.startsWith('bun') ? fixed(r.cpuMsPerPairSecond - floor / N, 2) : '-'
    rows.push([stack, r.runtime, String(N), fixed(r.cpuMsPerPairSecond, 2), net, werift ? `${fixed(r.cpuMsPerPairSecond / werift, 2)}x` : '-',
      fixed(r.cpuPercent), `${fixed(r.connectP50, 0)}/${fixed(r.connectMax, 0)}`, String(r.sent), fixed(lost, 2), fixed(r.rssMb, 0), fixed(r.maxLateMs, 0)])
    console.log(`  ${rows.at(-1)!.join('  ')}`)
  }
}

const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)))
console.log('\n' + rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n'))
// What one more pair costs, from the two largest N: free of the per-process cost (timers,
// threads, event-loop wake-ups) that a small N carries alone.
const slopes = new Map<string, number>()
for (const [stack, t] of totals) {
  const [a, b] = [...t].sort((x, y) => x.N - y.N).slice(-2)
  if (a && b && a.N < b.N) slopes.set(stack, (b.msPerS - a.msPerS) / (b.N - a.N))
}
for (const [stack, slope] of slopes) {
  const w = slopes.get('werift')
  const t = [...totals.get(stack)!].sort((x, y) => x.N - y.N).slice(-2)
  console.log(`marginal CPU per added pair, N ${t[0]!.N} -> ${t[1]!.N}: ${stack} ${fixed(slope, 2)} ms/s${w ? ` (${fixed(slope / w, 2)}x werift)` : ''}`)
}
console.log(`
CPU ms/pair-s: process CPU (user+system, all threads) per peer pair per second; a pair is both
ends of one call, so a server holding one end pays about half. net: less the bun floor / N (not
for node children). "vs werift": CPU ms/pair-s over werift's at the same N in this run. CPU %: of
one core. sent/lost: RTP packets of both directions over the whole media period. late: the
longest the 20 ms send clock fell behind. @roamhq/wrtc encodes and decodes Opus at both ends (its
packets come from PCM); werift and node-datachannel only move RTP packets. The marginal cost
needs N large enough that wake-ups are already shared (e.g. 20 and 50); at small N it is noise.`)
