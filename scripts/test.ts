// Runs every test: the type check, then the passes of `bun test` (main, real-time media,
// PostgreSQL, and the busy pass under a CPU hog; lists in scripts/test/passes.ts). Each pass
// prints its wall time and counts; the last line is the plain `N passed, N failed, N skipped`
// that CI reads (bun's own summary goes to stderr in a form CI does not read). Exits non-zero on
// failure. Under CI=true a test skipped for a missing Debian package is a failure: setup installs
// every package, so a skip there means a test silently vanished.
// With arguments, runs one pass of `bun test` with them (`npm test -- test/unit`).
import { postgresInstalled, startPostgres } from '../test/helpers/postgres.ts'
import { runBunPass, runProcess, type PassResult } from './test/bun-pass.ts'
import { startHog } from './test/hog.ts'
import { BUSY_PASS, POSTGRES_PASS, REAL_TIME_PASS } from './test/passes.ts'

const extra = process.argv.slice(2)
const whole = extra.length === 0
const ci = process.env.CI === 'true'
const passes: PassResult[] = []
const notes: string[] = []
let extraFailed = 0
let extraPassed = 0
let extraSkipped = 0

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
function report(p: PassResult): void {
  passes.push(p)
  console.log(`[${p.name} pass] ${p.passed} passed, ${p.failed} failed, ${p.skipped} skipped in ${seconds(p.wallMs)}`)
}

if (whole) {
  const started = performance.now()
  const tsc = await runProcess([process.execPath, 'x', 'tsc', '--noEmit', '-p', '.'])
  const ok = tsc.code === 0
  if (ok) extraPassed++
  else extraFailed++
  console.log(`${ok ? '(pass)' : '(fail)'} type check: tsc --noEmit in ${seconds(performance.now() - started)}`)
}

report(await runBunPass(whole ? 'main' : 'selected', whole ? [`--path-ignore-patterns=${REAL_TIME_PASS}/**`] : extra))

if (whole) {
  console.log(`real-time pass: ${REAL_TIME_PASS} in a process of its own`)
  report(await runBunPass('real-time', [REAL_TIME_PASS]))

  if (!postgresInstalled()) {
    console.log('(skip) PostgreSQL pass [needs Debian package postgresql]')
    extraSkipped++
    if (ci) {
      notes.push('(fail) CI=true: the PostgreSQL pass may not be skipped (bash scripts/setup.sh --test installs postgresql)')
      extraFailed++
    }
  } else {
    console.log(`PostgreSQL pass: ${POSTGRES_PASS.length} test files on a throwaway PostgreSQL cluster`)
    const cluster = await startPostgres()
    try {
      report(await runBunPass('PostgreSQL', POSTGRES_PASS, { TEST_DATABASE_URL: cluster.adminUrl }))
    } finally {
      cluster.stop()
    }
  }

  const hog = startHog()
  console.log(`busy pass: ${BUSY_PASS.length} timing-sensitive test files with a busy loop on each of ${hog.loops} cores`)
  try {
    report(await runBunPass('busy', BUSY_PASS))
  } finally {
    await hog.stop()
  }
}

const MISSING_PACKAGE = /^\(skip\) .*\[needs Debian package ([^\]]+)\]/gm
const missing = [...new Set(passes.flatMap((p) => [...p.out.matchAll(MISSING_PACKAGE)].map((m) => m[1]!)))]
if (missing.length) {
  console.log(`skipped for missing Debian packages: ${missing.join(', ')} (bash scripts/setup.sh --test installs them)`)
  if (ci) {
    notes.push('(fail) CI=true: a test may not be skipped for a missing package')
    extraFailed++
  }
}

const slowest = passes.flatMap((p) => p.files.map((f) => ({ ...f, pass: p.name }))).sort((a, b) => b.ms - a.ms).slice(0, 10)
if (slowest.length) console.log(`slowest files:\n${slowest.map((f) => `  ${seconds(f.ms).padStart(8)}  ${f.file} (${f.pass})`).join('\n')}`)

const failures = passes.flatMap((p) => p.failures.map((f) => `${f} [${p.name} pass]`)).concat(notes)
if (failures.length) console.log(`failed tests:\n${failures.join('\n')}`)
for (const p of passes) console.log(`${p.name} pass: ${p.passed} passed, ${p.failed} failed, ${p.skipped} skipped in ${seconds(p.wallMs)}`)
const sum = (k: 'passed' | 'failed' | 'skipped') => passes.reduce((n, p) => n + p[k], 0)
const failed = sum('failed') + extraFailed
console.log(`${sum('passed') + extraPassed} passed, ${failed} failed, ${sum('skipped') + extraSkipped} skipped`)
process.exit(failed > 0 ? 1 : 0)
