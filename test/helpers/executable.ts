// The compiled appliance as an operator runs it: built once per test run into a temporary folder,
// copied alone to an empty folder and started from a third one with only environment variables.
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiClient, type Api } from './appliance.ts'
import { collectLogLines, collectText } from './child-output.ts'
import { SHERPA_BESIDE } from '../../src/platform/embedded/index.ts'

const ROOT = join(import.meta.dir, '../..')
let built: string | undefined

const BUILD_PREFIX = 'voice-agent-build-'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Builds of test processes that have ended (and of older runs, named otherwise, an hour old). */
function removeStaleBuilds(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(BUILD_PREFIX)) continue
    const path = join(tmpdir(), name)
    const pid = Number(name.slice(BUILD_PREFIX.length))
    const stale = Number.isInteger(pid) && pid > 0 ? !alive(pid) : Date.now() - statSync(path).mtimeMs > 3_600_000
    if (stale) rmSync(path, { recursive: true, force: true })
  }
}

/** Builds dist-like output with scripts/build.ts into a temporary folder (once per process). */
export function buildExecutable(): string {
  if (built) return built
  // 220 MB a build, and bun test runs no exit hook: each process builds into a folder named for
  // its pid and first deletes the builds of processes that are gone
  removeStaleBuilds()
  const dir = join(tmpdir(), `${BUILD_PREFIX}${process.pid}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir)
  const out = join(dir, 'voice-agent')
  const proc = Bun.spawnSync([process.execPath, join(ROOT, 'scripts/build.ts'), out], { cwd: ROOT, stderr: 'pipe', stdout: 'pipe' })
  if (proc.exitCode !== 0) throw new Error(`build failed: ${proc.stderr.toString()}${proc.stdout.toString()}`)
  built = out
  return out
}

export interface RunningExecutable {
  pid: number
  url: string
  sipUdp: number
  dataDir: string
  adminKey: string
  api: Api
  /** Every log line the process wrote so far, parsed. */
  logs: any[]
  stop(): Promise<number>
}

/** The executable ended before it listened: its exit code, stderr and log lines. */
export class ExecutableStartError extends Error {
  constructor(
    readonly exitCode: number,
    readonly stderr: string,
    readonly logs: any[],
  ) {
    super(`the executable exited with ${exitCode} before listening: ${stderr.slice(-2000)} ${JSON.stringify(logs).slice(-2000)}`)
  }
}

/**
 * Copies the executable (this checkout's, or `built`: one a benchmark built from another commit)
 * to an empty folder and starts it from another one; resolves once it listens, rejects with ExecutableStartError.
 */
export async function runExecutable(env: Record<string, string> = {}, args: string[] = [], opts: { built?: string } = {}): Promise<RunningExecutable> {
  const source = opts.built ?? buildExecutable()
  const home = mkdtempSync(join(tmpdir(), 'voice-agent-bin-'))
  const exe = join(home, 'voice-agent')
  copyFileSync(source, exe)
  // what dist/ holds beside the executable: sherpa-onnx, whose native addon cannot be embedded
  cpSync(join(source, '..', SHERPA_BESIDE), join(home, SHERPA_BESIDE), { recursive: true })
  const cwd = mkdtempSync(join(tmpdir(), 'voice-agent-cwd-'))
  const dataDir = join(mkdtempSync(join(tmpdir(), 'voice-agent-data-')), 'data')
  const rtpBase = 24000 + 200 * Math.floor(Math.random() * 40)
  // an empty cache each run unless the caller names one: the embedded files are extracted anew, as on a first start
  const cache = env.XDG_CACHE_HOME ? undefined : mkdtempSync(join(tmpdir(), 'voice-agent-cache-'))
  const proc = Bun.spawn([exe, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      ...(cache ? { XDG_CACHE_HOME: cache } : {}),
      DATA_DIR: dataDir,
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      SIP_HOST: '127.0.0.1',
      SIP_PORT: '0',
      SIP_TLS_PORT: '0',
      PUBLIC_HOST: '127.0.0.1',
      RTP_PORT_MIN: String(rtpBase),
      RTP_PORT_MAX: String(rtpBase + 199),
      // admission by live figures depends on this machine's load: off unless a test asks for it
      CAPACITY_LAG_MS: '0',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const logs: any[] = []
  let started!: (v: { url: string; sipUdp: number }) => void
  let failed!: (e: Error) => void
  const ready = new Promise<{ url: string; sipUdp: number }>((res, rej) => ((started = res), (failed = rej)))
  let sipUdp = 0
  collectLogLines(proc.stdout, logs, (entry) => {
    if (entry.msg === 'SIP listening') sipUdp = entry.sip.udp
    if (entry.msg === 'appliance started') started({ url: entry.url, sipUdp })
  })
  const errText = collectText(proc.stderr)
  // the pipes are read to their end first, so the error carries all of stderr
  void proc.exited.then(async (code) => {
    await errText.ended
    failed(new ExecutableStartError(code, errText(), logs))
  })
  const { url } = await ready
  const adminKey = (await Bun.file(join(dataDir, 'admin-api-key')).text()).trim()
  return {
    pid: proc.pid,
    url,
    sipUdp,
    dataDir,
    adminKey,
    api: apiClient(url, adminKey),
    logs,
    async stop() {
      proc.kill('SIGTERM')
      const code = await proc.exited
      // the cache made here holds about 65 MB of extracted files: never left behind
      for (const d of [home, cwd, join(dataDir, '..'), cache]) if (d) rmSync(d, { recursive: true, force: true })
      return code
    },
  }
}

/** Runs one command of the executable (e.g. check-config) to its end with only `env`; its exit code and output. */
export function execExecutable(args: string[], env: Record<string, string> = {}): { exitCode: number; stdout: string; stderr: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'voice-agent-cwd-'))
  try {
    const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, DATA_DIR: join(cwd, 'data') }
    const proc = Bun.spawnSync([buildExecutable(), ...args], { cwd, env: { ...base, ...env }, stdout: 'pipe', stderr: 'pipe' })
    return { exitCode: proc.exitCode ?? -1, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() }
  } finally {
    rmSync(cwd, { recursive: true, force: true })
  }
}
