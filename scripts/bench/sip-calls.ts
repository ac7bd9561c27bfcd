// Calls per second through the user agent: SIPp's built-in uac (no media, 1-second calls) at
// stepped rates against an in-process user agent that answers every call. For each step:
// successful and failed calls and INVITE-to-200 p50/p99 from SIPp's own response times.
// The result is the highest rate held for the whole step with zero failed calls.
//   bun run scripts/bench/sip-calls.ts            (60 s per step, rates 50,100,200,300,400)
//   STEP_SEC=10 RATES=50,100,200 bun run scripts/bench/sip-calls.ts
import { readdirSync, readFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { UserAgent } from '../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../test/helpers/number-directory.ts'
import { freePort } from '../../test/helpers/sipp.ts'
import { LagProbe } from '../../test/helpers/lag-probe.ts'

const STEP_SEC = Number(process.env.STEP_SEC ?? 60)
const RATES = (process.env.RATES ?? '50,100,200,300,400').split(',').map(Number)
const NUMBER = '15550009999'
const SDP = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 42000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n'

const ua = new UserAgent({
  host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, refusalsPerSec: 0,
  directory: new InMemoryNumberDirectory([{ number: NUMBER, trunkSources: ['127.0.0.1'] }]),
})
ua.on('call', (call) => call.answer(SDP))
await ua.start()

interface Step {
  rate: number
  ok: number
  failed: number
  p50: number
  p99: number
  /** The worst event-loop lag of this process during the step, and its memory at the end. */
  lagMs: number
  rssMiB: number
  heapMiB: number
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN

async function step(rate: number): Promise<Step> {
  const lag = new LagProbe(5).start()
  const dir = mkdtempSync(join(tmpdir(), 'sipp-bench-'))
  const calls = rate * STEP_SEC
  const proc = Bun.spawn([
    'sipp', '-sn', 'uac', `127.0.0.1:${ua.ports.udp}`, '-s', NUMBER, '-i', '127.0.0.1', '-p', String(await freePort()),
    '-r', String(rate), '-m', String(calls), '-d', '1000', '-l', String(rate * 4), '-nostdin', '-timeout', `${STEP_SEC + 60}s`,
    '-trace_rtt', '-rtt_freq', String(Math.max(1, Math.floor(calls / 10))), '-trace_stat', '-fd', String(STEP_SEC + 10),
  ], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
  const out = await new Response(proc.stdout).text()
  await proc.exited
  const num = (label: string) => Number(new RegExp(`${label}\\s*\\|\\s*\\d+\\s*\\|\\s*(\\d+)`).exec(out)?.[1] ?? NaN)
  const rttFile = readdirSync(dir).find((f) => f.endsWith('_rtt.csv'))
  const rtts = rttFile
    ? readFileSync(join(dir, rttFile), 'utf8').trim().split('\n').slice(1).map((l) => Number(l.split(';')[1])).filter(Number.isFinite).sort((a, b) => a - b)
    : []
  rmSync(dir, { recursive: true, force: true })
  lag.stop()
  const mem = process.memoryUsage()
  return { rate, ok: num('Successful call'), failed: num('Failed call'), p50: pct(rtts, 50), p99: pct(rtts, 99), lagMs: lag.worstMs, rssMiB: mem.rss / 2 ** 20, heapMiB: mem.heapUsed / 2 ** 20 }
}

console.log(`SIPp -sn uac, 1 s calls, no media, ${STEP_SEC} s per step, user agent in this process`)
console.log('rate cps | successful | failed | INVITE->200 p50 ms | p99 ms | worst loop lag ms | RSS MiB | heap MiB | load1')
let best = 0
for (const rate of RATES) {
  const s = await step(rate)
  console.log(`${String(rate).padStart(8)} | ${String(s.ok).padStart(10)} | ${String(s.failed).padStart(6)} | ${s.p50.toFixed(2).padStart(18)} | ${s.p99.toFixed(2).padStart(6)} | ${s.lagMs.toFixed(1).padStart(17)} | ${s.rssMiB.toFixed(0).padStart(7)} | ${s.heapMiB.toFixed(0).padStart(8)} | ${loadavg()[0]!.toFixed(2)}`)
  if (s.failed === 0 && s.ok === rate * STEP_SEC) best = rate
  else break
}
console.log(`highest rate held for ${STEP_SEC} s with zero failed calls: ${best} calls/s (target 200)`)
await ua.stop()
