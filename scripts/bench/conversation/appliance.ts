// The appliance under test, as an operator runs it: `bun src/main.ts` in a child process with
// only environment variables, a temporary DATA_DIR, ports (web calls' ICE candidates too) on
// 127.0.0.1; optionally pinned to one core (taskset -c 0, as a small appliance VM). Its warnings
// and errors are kept for the report.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Api } from '../../../test/helpers/appliance.ts'
import { collectLogLines, collectText } from '../../../test/helpers/child-output.ts'

export interface BenchAppliance {
  pid: number
  url: string
  sipPort: number
  api: Api
  /** The admin API key (web calls signal with it). */
  adminKey: string
  workspaceId: string
  /** Log lines at warn level or above, so far. */
  problems: any[]
  stop(): Promise<void>
}

/** The HTTP API with the admin key (the test helper's client lives beside an in-process appliance this bench must not load). */
function apiOf(url: string, key: string): Api {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = opts.key === null ? {} : { authorization: `Bearer ${opts.key ?? key}` }
    if (opts.body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) })
    const text = await res.text()
    let body: any = text
    try {
      body = text ? JSON.parse(text) : undefined
    } catch {}
    return { status: res.status, headers: res.headers, body }
  }
}

export async function startAppliance(sourceDir: string, env: Record<string, string>, pin: boolean): Promise<BenchAppliance> {
  const home = mkdtempSync(join(tmpdir(), 'bench-conversation-'))
  const rtpBase = 20000 + 400 * Math.floor(Math.random() * 27)
  const cmd = [process.execPath, ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof-md', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), join(sourceDir, 'src/main.ts')]
  const proc = Bun.spawn(pin ? ['taskset', '-c', '0', ...cmd] : cmd, {
    cwd: home,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      DATA_DIR: join(home, 'data'),
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      SIP_HOST: '127.0.0.1',
      SIP_PORT: '0',
      SIP_TLS_PORT: '0',
      PUBLIC_HOST: '127.0.0.1',
      RTP_PORT_MIN: String(rtpBase),
      RTP_PORT_MAX: String(rtpBase + 398),
      CALL_DRAIN_MS: '0',
      RATE_LIMIT_PER_SEC: '0',
      WEBRTC_HOST_ADDRESSES: '127.0.0.1',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const logs: any[] = []
  const problems: any[] = []
  let sipPort = 0
  let started!: (url: string) => void
  let failed!: (e: Error) => void
  const ready = new Promise<string>((res, rej) => ((started = res), (failed = rej)))
  collectLogLines(proc.stdout, logs, (entry) => {
    if (entry.level >= 40) problems.push(entry)
    if (logs.length > 2000) logs.splice(0, 1000)
    if (entry.msg === 'SIP listening') sipPort = entry.sip.udp
    if (entry.msg === 'appliance started') started(entry.url)
  })
  const stderr = collectText(proc.stderr)
  void proc.exited.then(async (code) => {
    await stderr.ended
    failed(new Error(`the appliance exited with ${code}: ${stderr().slice(-2000)}`))
  })
  const stop = async () => {
    proc.kill('SIGTERM')
    const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
    await proc.exited
    clearTimeout(killer)
    rmSync(home, { recursive: true, force: true })
  }
  let url: string
  try {
    url = await ready
  } catch (err) {
    rmSync(home, { recursive: true, force: true })
    throw err
  }
  const adminKey = (await Bun.file(join(home, 'data', 'admin-api-key')).text()).trim()
  const api = apiOf(url, adminKey)
  const workspaceId = (await api('GET', '/api/workspaces')).body.workspaces[0].id as string
  return { pid: proc.pid, url, sipPort, api, adminKey, workspaceId, problems, stop }
}
