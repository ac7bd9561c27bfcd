// A longer fuzz run than the test suite's: every route of a fresh appliance's OpenAPI document
// gets `--cases` generated bad requests from `--seed` on (test/helpers/fuzz-api.ts says what is
// checked). Prints each finding with a request that reproduces it; exits 1 when there is one.
//   bun run scripts/fuzz-api.ts [--seed 1] [--cases 500]
import { fuzzApi, startFuzzAppliance } from '../test/helpers/fuzz-api.ts'

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const seed = arg('seed', Date.now() % 1_000_000)
const cases = arg('cases', 500)

const { t, ids, stop } = await startFuzzAppliance()
const started = performance.now()
try {
  const run = await fuzzApi({ baseUrl: t.url, key: t.adminKey, workspaceId: t.workspaceId, ids, seed, cases })
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(`seed ${seed}: ${run.requests} requests over ${run.routes} routes in ${seconds} s, ${run.findings.length} findings`)
  console.log('answers by status:', Object.fromEntries([...run.statuses].sort(([a], [b]) => a - b)))
  for (const f of run.findings) console.log(JSON.stringify(f, null, 2))
  process.exitCode = run.findings.length ? 1 : 0
} finally {
  await stop()
}
