// One `bun test` pass: its output teed to ours, its counts, its failed tests each named with its
// own file, and its wall time.
import { spawn } from 'bun'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseJunit } from './junit.ts'

export interface PassResult {
  name: string
  passed: number
  failed: number
  skipped: number
  wallMs: number
  /** `(fail) <test> (<file>)`, once per failed test. */
  failures: string[]
  /** Each test file's own time, for the slowest-files list. */
  files: { file: string; ms: number }[]
  /** The pass's console output (bun's summary and skip lines are read from it). */
  out: string
}

export async function runProcess(cmd: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const proc = spawn(cmd, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, FORCE_COLOR: '0', ...env } })
  let out = ''
  const pump = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true })
      out += text
      sink.write(text)
    }
  }
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)])
  return { code: await proc.exited, out }
}

/**
 * `(fail)` lines read from the console, for failures the JUnit report lacks (an error between
 * tests, a crashed process). Reading stops at bun's recap ("N tests failed:"), which repeats the
 * failures after the last file's header.
 */
export function consoleFailures(out: string): string[] {
  const lines: string[] = []
  let file = ''
  for (const line of out.split('\n')) {
    if (/^\d+ tests? failed:$/.test(line.trim())) break
    if (/^\S+\.test\.tsx?:$/.test(line)) file = line.slice(0, -1)
    else if (line.startsWith('(fail) ')) lines.push(`${line.replace(/ \[[\d.]+m?s\]$/, '')} (${file})`)
  }
  return lines
}

/**
 * Every test's timeout unless it sets its own. bun ignores a timeout in bunfig.toml and defaults
 * to 5 s, which a test that starts a server or an engine can pass on a fast machine and miss on a
 * slow or busy one.
 */
export const TEST_TIMEOUT_MS = 30_000

export async function runBunPass(name: string, args: string[], env: Record<string, string> = {}): Promise<PassResult> {
  const dir = mkdtempSync(join(tmpdir(), 'voice-agent-junit-'))
  const report = join(dir, 'report.xml')
  const started = performance.now()
  const bunBin = process.execPath
  const { code, out } = await runProcess([bunBin, 'test', `--timeout=${TEST_TIMEOUT_MS}`, '--reporter=junit', `--reporter-outfile=${report}`, ...args], env)
  const wallMs = performance.now() - started
  const junit = existsSync(report) ? parseJunit(readFileSync(report, 'utf8')) : { cases: [], files: [] }
  rmSync(dir, { recursive: true, force: true })

  const count = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0)
  const passed = count(/^\s*(\d+) pass\b/m)
  let failed = count(/^\s*(\d+) fail\b/m)
  const skipped = count(/^\s*(\d+) skip\b/m)
  if (code !== 0 && failed === 0) failed = 1

  const failures = junit.cases.filter((c) => c.failed).map((c) => `(fail) ${c.name} (${c.file})`)
  if (failures.length < failed) {
    const named = new Set(failures)
    for (const line of consoleFailures(out)) if (!named.has(line)) failures.push(line)
    if (failures.length === 0) failures.push(`(fail) ${name}: bun test exited ${code} with no failed test named`)
  }
  return { name, passed, failed, skipped, wallMs, failures, files: junit.files, out }
}
