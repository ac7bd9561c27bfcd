// Runs every test: the type check, then `bun test`, then the PostgreSQL pass (POSTGRES_PASS
// again, on one throwaway PostgreSQL cluster). Prints one plain line
// `N passed, N failed, N skipped` (bun's own summary goes to stderr in a form CI does not read)
// and exits non-zero on failure. Under CI=true a test skipped for a missing Debian package is a
// failure: setup installs every package, so a skip there means a test silently vanished.
import { spawn } from 'bun'
import { postgresInstalled, startPostgres } from '../test/helpers/postgres.ts'

/**
 * The repository and service tests that run a second time against PostgreSQL (DATABASE_URL):
 * the HTTP API over every repository, the workers' and campaigns' API tests, calls placed and
 * taken over SIP. Tests that read the SQLite file itself, or test SQLite-only features (the
 * DATA_DIR lock, backup), are not here. The cluster tests (test/integration/cluster) run
 * PostgreSQL on their own in the first pass.
 */
export const POSTGRES_PASS = [
  'test/unit/db/dialects.test.ts',
  'test/integration/access.test.ts',
  'test/integration/agent-readiness.test.ts',
  'test/integration/agent-snapshot.test.ts',
  'test/integration/agents.test.ts',
  'test/integration/api-keys.test.ts',
  'test/integration/billing.test.ts',
  'test/integration/carrier.test.ts',
  'test/integration/errors.test.ts',
  'test/integration/fuzz.test.ts',
  'test/integration/health.test.ts',
  'test/integration/hostile-input.test.ts',
  'test/integration/metrics.test.ts',
  'test/integration/pagination.test.ts',
  'test/integration/phone-numbers.test.ts',
  'test/integration/spec-shapes.test.ts',
  'test/integration/voice-preview.test.ts',
  'test/integration/webhooks.test.ts',
  'test/integration/workspaces.test.ts',
  'test/integration/calls/inbound-sip.test.ts',
  'test/integration/calls/number-ownership.test.ts',
  'test/integration/calls/outbound-sip.test.ts',
  'test/integration/calls/records-api.test.ts',
  'test/integration/calls/retention.test.ts',
  'test/integration/campaigns/campaign-webhooks.test.ts',
  'test/integration/campaigns/jobs-api.test.ts',
  'test/integration/campaigns/tenant-boundary.test.ts',
]

/**
 * Tests that measure real-time pacing (the media clock, RTP timelines). They run in a `bun test`
 * process of their own: in the one process of the whole suite, the heap and threads that the
 * earlier files leave behind bring collector pauses that shift a 20 ms timeline.
 */
export const REAL_TIME_PASS = 'test/integration/media'

const bunBin = process.execPath
const extra = process.argv.slice(2)

async function run(cmd: string[], tee: boolean, env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const proc = spawn(cmd, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, FORCE_COLOR: '0', ...env } })
  let out = ''
  const pump = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true })
      out += text
      if (tee) sink.write(text)
    }
  }
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)])
  return { code: await proc.exited, out }
}

const MISSING_PACKAGE = /^\(skip\) .*\[needs Debian package ([^\]]+)\]/gm

let passed = 0
let failed = 0
let skipped = 0
/** Every `(fail)` line of every pass, printed again above the summary: CI keeps only the tail of the output. */
const failures: string[] = []

if (extra.length === 0) {
  const tsc = await run([bunBin, 'x', 'tsc', '--noEmit', '-p', '.'], true)
  if (tsc.code === 0) passed++
  else failed++
  console.log(tsc.code === 0 ? '(pass) type check: tsc --noEmit' : '(fail) type check: tsc --noEmit')
}

/** The `(fail)` lines of a `bun test` run, each with the test file it came from. */
function failedTests(out: string): string[] {
  const lines: string[] = []
  let file = ''
  for (const line of out.split('\n')) {
    if (/^\S+\.test\.tsx?:$/.test(line)) file = line.slice(0, -1)
    else if (line.startsWith('(fail) ')) lines.push(`${line} (${file})`)
  }
  return lines
}

/** Adds a `bun test` run's figures to the totals; false when it failed. */
function count(tests: { code: number; out: string }): boolean {
  const pass = /^\s*(\d+) pass\b/m.exec(tests.out)
  const fail = /^\s*(\d+) fail\b/m.exec(tests.out)
  const skip = /^\s*(\d+) skip\b/m.exec(tests.out)
  passed += Number(pass?.[1] ?? 0)
  failed += Number(fail?.[1] ?? 0)
  skipped += Number(skip?.[1] ?? 0)
  if (tests.code !== 0 && !fail) failed++
  failures.push(...failedTests(tests.out))
  return tests.code === 0
}

const tests = await run([bunBin, 'test', ...(extra.length ? extra : [`--path-ignore-patterns=${REAL_TIME_PASS}/**`])], true)
let ok = count(tests)
if (extra.length === 0) {
  console.log(`real-time pass: ${REAL_TIME_PASS} in a process of its own`)
  ok = count(await run([bunBin, 'test', REAL_TIME_PASS], true)) && ok
}

if (extra.length === 0) {
  if (!postgresInstalled()) {
    console.log('(skip) PostgreSQL pass [needs Debian package postgresql]')
    skipped++
    if (process.env.CI === 'true') {
      console.log('(fail) CI=true: the PostgreSQL pass may not be skipped (bash scripts/setup.sh --test installs postgresql)')
      failed++
      ok = false
    }
  } else {
    console.log(`PostgreSQL pass: ${POSTGRES_PASS.length} test files on a throwaway PostgreSQL cluster`)
    const cluster = await startPostgres()
    try {
      ok = count(await run([bunBin, 'test', ...POSTGRES_PASS], true, { TEST_DATABASE_URL: cluster.adminUrl })) && ok
    } finally {
      cluster.stop()
    }
  }
}

const missing = [...new Set([...tests.out.matchAll(MISSING_PACKAGE)].map((m) => m[1]!))]
if (missing.length) {
  console.log(`skipped for missing Debian packages: ${missing.join(', ')} (bash scripts/setup.sh --test installs them)`)
  if (process.env.CI === 'true') {
    console.log('(fail) CI=true: a test may not be skipped for a missing package')
    failed++
  }
}

if (failures.length) console.log(`failed tests:\n${failures.join('\n')}`)
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed > 0 || !ok ? 1 : 0)
