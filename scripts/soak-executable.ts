// Soak of issue 23 ("a call must never be silent"): fresh starts of the built executable, the
// extraction cache emptied before every other start (the others find one shared cache warm), one
// SIPp uac_pcap call each to a workflow agent that speaks first and has no LLM. Each start must
// leave the agent audible in the call's recording, with no call_agent_silent warning and
// voice_agent_calls_agent_silent_total at 0. Exits 1 when any start fails that.
//   bun run scripts/soak-executable.ts [--starts 50]
import { loadavg } from 'node:os'
import { soak, type SoakStart } from '../test/helpers/executable-soak.ts'
import { PocketsphinxStt } from '../src/realtime/voice/stt/index.ts'

const i = process.argv.indexOf('--starts')
const starts = i > 0 ? Number(process.argv[i + 1]) : 50
if (!Number.isInteger(starts) || starts < 1) {
  console.error('--starts takes a whole number of starts, 1 or more')
  process.exit(2)
}

const ok = (r: SoakStart) => r.audible && r.silentLines === 0 && r.silentCounter === 0
const s = (ms: number) => (ms / 1000).toFixed(1)
const load0 = loadavg()[0]!
const env: Record<string, string> = PocketsphinxStt.available() ? { STT_PROVIDER: 'pocketsphinx' } : {}
const results = await soak(
  starts,
  (r, n) => {
    const line = `start ${String(n + 1).padStart(3)} ${r.cold ? 'cold' : 'warm'}: ready ${s(r.readyMs)} s, total ${s(r.totalMs)} s, agent loud ${r.agentLoudWindows} x 100 ms, tts ${r.ttsDuration.toFixed(1)} s, welcome ${r.welcome}, ${r.outcome}/${r.endReason}, silent lines ${r.silentLines}, counter ${r.silentCounter}, sipp ${r.sippCode}`
    console.log(`${ok(r) ? 'ok  ' : 'FAIL'} ${line}`)
  },
  env,
)

const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!
const summary = (label: string, rs: SoakStart[]) => {
  if (!rs.length) return
  const total = rs.map((r) => r.totalMs)
  const ready = rs.map((r) => r.readyMs)
  console.log(
    `  ${label.padEnd(5)} ${String(rs.length).padStart(3)} starts, audible ${rs.filter((r) => r.audible).length}, silent warnings ${rs.reduce((n, r) => n + r.silentLines, 0)}; ready p50 ${s(p(ready, 0.5))} s max ${s(Math.max(...ready))} s; per start p50 ${s(p(total, 0.5))} s max ${s(Math.max(...total))} s`,
  )
}
console.log(`soak of the executable: ${results.length} starts (loadavg ${load0.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end)`)
summary('cold', results.filter((r) => r.cold))
summary('warm', results.filter((r) => !r.cold))
summary('all', results)
const failed = results.filter((r) => !ok(r)).length
console.log(failed ? `${failed} of ${results.length} starts left the agent silent or warned` : `the agent was audible in all ${results.length} calls`)
process.exit(failed ? 1 : 0)
