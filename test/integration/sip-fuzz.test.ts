// The SIP fuzz suite, short: mutated RFC 4475 and SIPp messages (byte flips, truncation,
// repeated, conflicting and removed headers, huge values, bad Content-Length, mangled CRLFs, bad
// start lines) over UDP, TCP and TLS to an appliance in this process. Nothing crashes or logs a
// handler failure, no answer is a 5xx, a malformed message gets 400 or nothing, a valid OPTIONS
// is answered afterwards, and the event loop keeps up. `npm run fuzz:sip -- --seed N --cases M`
// runs longer.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { lagBudgetMs } from '../helpers/lag-probe.ts'
import { fuzzSip, stillAnswers } from '../helpers/sip-fuzz.ts'
import { startSipFuzzAppliance, type SipFuzzAppliance } from '../helpers/sip-fuzz-appliance.ts'

const SEED = 4475
const CASES_PER_TRANSPORT = 200
const MAX_LAG_MS = 50

let f: SipFuzzAppliance
beforeAll(async () => {
  f = await startSipFuzzAppliance()
})
afterAll(() => f?.stop())

test('mutated SIP messages over UDP, TCP and TLS: no crash, no 5xx, 400 or silence for malformed ones, OPTIONS still answered, no event-loop stall', async () => {
  const base = { target: f.target, ports: f.ports, seeds: f.seeds, seed: SEED, logFailures: f.logFailures }
  // the same traffic unmutated, in this process and on this machine as it is now: the lag it
  // causes is the yardstick, so a busy machine does not fail the test and a stall still does
  const calibration = await fuzzSip({ ...base, casesPerTransport: 50, mutate: false })
  expect(calibration.findings).toEqual([])

  const bound = Math.max(await lagBudgetMs(MAX_LAG_MS), 10 * calibration.worstLagMs)
  const run = await fuzzSip({ ...base, casesPerTransport: CASES_PER_TRANSPORT, lagRetryMs: bound })
  expect(run.findings).toEqual([])
  expect(run.sent).toBe(3 * CASES_PER_TRANSPORT)
  // the mutations did produce malformed messages, and both outcomes allowed for them occurred
  expect(run.answers.malformed.get(400)).toBeGreaterThan(20)
  expect(run.answers.malformed.get(0)).toBeGreaterThan(20)
  expect(await stillAnswers(f, 'after-fuzz')).toEqual([])
  expect(run.worstLagMs).toBeLessThan(bound)
}, 120_000)
