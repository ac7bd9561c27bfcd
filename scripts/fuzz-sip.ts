// A longer SIP fuzz run than the test suite's: `--cases` mutated RFC 4475 and SIPp messages per
// transport (UDP, TCP, TLS) from `--seed` on, against an appliance in this process
// (test/helpers/sip-fuzz.ts says what is checked). Prints a summary and each finding with the
// message that reproduces it; exits 1 when there is one.
//   bun run scripts/fuzz-sip.ts [--seed 1] [--cases 2000]
import { fuzzSip, stillAnswers } from '../test/helpers/sip-fuzz.ts'
import { startSipFuzzAppliance } from '../test/helpers/sip-fuzz-appliance.ts'

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const seed = arg('seed', Date.now() % 1_000_000)
const cases = arg('cases', 2000)
const MAX_LAG_MS = 50

const f = await startSipFuzzAppliance()
try {
  const base = { target: f.target, ports: f.ports, seeds: f.seeds, logFailures: f.logFailures }
  const calibration = await fuzzSip({ ...base, seed, casesPerTransport: Math.min(cases, 200), mutate: false })
  const started = performance.now()
  const run = await fuzzSip({ ...base, seed, casesPerTransport: cases })
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const alive = await stillAnswers(f, `fuzz-final-${seed}`)
  const lagBound = Math.max(MAX_LAG_MS, 10 * calibration.worstLagMs)
  console.log(`seed ${seed}: ${run.sent} messages over UDP, TCP and TLS in ${seconds} s, ${run.findings.length} findings`)
  console.log(`worst event-loop lag ${run.worstLagMs.toFixed(1)} ms (unmutated messages: ${calibration.worstLagMs.toFixed(1)} ms; bound ${lagBound.toFixed(0)} ms)`)
  for (const [t, l] of Object.entries(run.lagByTransport)) console.log(`  ${t}: worst ${l.worstMs.toFixed(1)} ms in the batch from case ${l.atCase}`)
  const show = (m: Map<number, number>) => Object.fromEntries([...m].sort(([a], [b]) => a - b).map(([s, n]) => [s === 0 ? 'dropped' : s, n]))
  console.log('malformed messages, last answer:', show(run.answers.malformed))
  console.log('other mutations, last answer:', show(run.answers.any))
  console.log(alive.length ? `after the run: ${alive.join('; ')}` : 'after the run: a valid OPTIONS gets 200 over UDP, TCP and TLS')
  for (const x of run.findings) console.log(JSON.stringify(x, null, 2))
  process.exitCode = run.findings.length || alive.length || run.worstLagMs > lagBound ? 1 : 0
} finally {
  await f.stop()
}
