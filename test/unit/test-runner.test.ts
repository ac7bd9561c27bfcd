// scripts/test.ts counts skipped tests, and under CI=true a test skipped for a missing Debian
// package fails the run: tests cannot silently vanish on a machine set up without the peers.
// Its summary names each failed test with its own file, once: CI keeps only the tail.
import { afterAll, expect, test } from 'bun:test'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { consoleFailures } from '../../scripts/test/bun-pass.ts'
import { parseJunit } from '../../scripts/test/junit.ts'

const ROOT = resolve(import.meta.dir, '../..')
const FIXTURES = join(ROOT, 'test/fixtures/runner')

/** The runner's own lines go to stdout; bun's console output of the tests goes to stderr. */
async function runner(ci: boolean, ...files: string[]): Promise<{ code: number; out: string; stdout: string }> {
  const env = { ...process.env, CI: ci ? 'true' : '' }
  const proc = Bun.spawn([process.execPath, 'scripts/test.ts', ...files], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  return { code: await proc.exited, out: out + err, stdout: out }
}

const failedList = (stdout: string) => stdout.slice(stdout.lastIndexOf('failed tests:')).split('\n').filter((l) => l.startsWith('(fail) '))

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

test('the runner prints passed, failed and skipped; a skip for a missing package is reported but passes outside CI', async () => {
  const r = await runner(false, './test/fixtures/runner/missing-package.ts')
  expect(r.out).toContain('1 passed, 0 failed, 1 skipped')
  expect(r.out).toContain('skipped for missing Debian packages: no-such-package-xyz')
  expect(r.code).toBe(0)
}, 30_000)

test('under CI=true a skip caused by a missing Debian package fails the run', async () => {
  const r = await runner(true, './test/fixtures/runner/missing-package.ts')
  expect(r.out).toContain('1 passed, 1 failed, 1 skipped')
  expect(r.code).toBe(1)
}, 30_000)

test('the failed list names each failed test with its own file, once, among more than 20 files', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-fixture-'))
  dirs.push(dir)
  copyFileSync(join(FIXTURES, 'fails-first.ts'), join(dir, 'a-fails-first.test.ts'))
  copyFileSync(join(FIXTURES, 'fails-second.ts'), join(dir, 'b-fails-second.test.ts'))
  // more than 20 files make bun repeat the failures after the last file, which passes
  for (let i = 10; i < 30; i++) writeFileSync(join(dir, `c${i}-passes.test.ts`), `import { test } from 'bun:test'\ntest('passes ${i}', () => {})\n`)
  const r = await runner(false, dir)
  expect(r.code).toBe(1)
  expect(r.out).toContain('tests failed:') // bun's recap is there to be misread
  expect(failedList(r.stdout)).toEqual([
    `(fail) first fixture fails on purpose (${join(dir, 'a-fails-first.test.ts')}) [selected pass]`,
    `(fail) second fixture fails on purpose (${join(dir, 'b-fails-second.test.ts')}) [selected pass]`,
  ])
  expect(r.out).toContain('21 passed, 2 failed, 0 skipped')
}, 60_000)

test('a failure read from the console is named with the file it ran in, not the file bun printed last', () => {
  const out = ['a.test.ts:', '(fail) broke [1.00ms]', '', 'z.test.ts:', '(pass) fine', '', '1 tests failed:', '(fail) broke [1.00ms]', '', ' 1 pass', ' 1 fail'].join('\n')
  expect(consoleFailures(out)).toEqual(['(fail) broke (a.test.ts)'])
})

test('a failed test whose package is installed is not labelled as needing it', async () => {
  const r = await runner(true, './test/fixtures/runner/present-package-fails.ts')
  expect(failedList(r.stdout)).toEqual([
    '(fail) a test with its package installed fails on purpose (test/fixtures/runner/present-package-fails.ts) [selected pass]',
  ])
  expect(r.out).not.toContain('needs Debian package')
  expect(r.code).toBe(1)
}, 30_000)

test('a file with describe blocks is one entry of the slowest-files list, with the file time', () => {
  const xml = `<testsuites><testsuite name="a.test.ts" file="a.test.ts" time="2.5"><testsuite name="block" file="a.test.ts" time="2.0">
    <testcase name="t1" file="a.test.ts" time="2.0" /></testsuite><testcase name="t2" file="a.test.ts" time="0.5"><failure message="x">x</failure></testcase></testsuite></testsuites>`
  const report = parseJunit(xml)
  expect(report.files).toEqual([{ file: 'a.test.ts', ms: 2500 }])
  expect(report.cases.map((c) => [c.name, c.failed])).toEqual([['t1', false], ['t2', true]])
})
