// Benchmark: authenticated GET /api/workspaces/{id} at 50 concurrent connections, against a
// bare Bun.serve route returning the same JSON, measured in the same run. Each server runs in
// its own process; the load comes from wrk (Debian package `wrk`) in a third.
//   bun run scripts/bench/http-workspace.ts [--seconds 10] [--connections 50]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchArg, requireWrk, waitFor, wrk, type WrkResult } from './wrk.ts'

const seconds = benchArg('seconds', 10)
const connections = benchArg('connections', 50)
const root = join(import.meta.dir, '..', '..')
requireWrk()

const dataDir = mkdtempSync(join(tmpdir(), 'bench-http-'))
const appPort = 39000 + Math.floor(Math.random() * 500)
const barePort = appPort + 600
const appliance = Bun.spawn([process.execPath, 'src/main.ts'], {
  cwd: root,
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: String(appPort),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    RATE_LIMIT_PER_SEC: '1000000000',
    RATE_LIMIT_BURST: '1000000000',
  },
  stdout: 'ignore',
  stderr: 'inherit',
})
let bare: ReturnType<typeof Bun.spawn> | undefined
try {
  const base = `http://127.0.0.1:${appPort}`
  await waitFor(`${base}/health`)
  const key = readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim()
  const auth = { authorization: `Bearer ${key}` }
  const list = (await (await waitFor(`${base}/api/workspaces`, auth)).json()) as { workspaces: { id: string }[] }
  const id = (list.workspaces[0] as { id: string }).id
  const url = `${base}/api/workspaces/${id}`
  const body = await (await waitFor(url, auth)).text()

  bare = Bun.spawn([process.execPath, '-e', `Bun.serve({ hostname: '127.0.0.1', port: ${barePort}, fetch: () => new Response(${JSON.stringify(body)}, { headers: { 'content-type': 'application/json' } }) })`], {
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const bareUrl = `http://127.0.0.1:${barePort}/api/workspaces/${id}`
  await waitFor(bareUrl)

  const baseline = await wrk(bareUrl, auth, { seconds, connections })
  const ours = await wrk(url, auth, { seconds, connections })
  if (ours.non2xx > 0) throw new Error(`${ours.non2xx} non-2xx responses from the appliance`)
  const row = (name: string, r: WrkResult) => `| ${name} | ${r.rps.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} |`
  console.log(`GET /api/workspaces/{id}, ${connections} connections, ${seconds} s, wrk -t2, LOG_LEVEL=${process.env.LOG_LEVEL ?? 'info'}`)
  console.log('| server | requests/s | p50 ms | p99 ms |')
  console.log('|---|---|---|---|')
  console.log(row('bare Bun.serve (baseline)', baseline))
  console.log(row('appliance (auth + SQLite + rate limit + log)', ours))
  console.log(`throughput ratio ${(ours.rps / baseline.rps).toFixed(2)} (target >= 0.5); p50 ratio ${(ours.p50Ms / baseline.p50Ms).toFixed(2)}; p99 ratio ${(ours.p99Ms / baseline.p99Ms).toFixed(2)}; appliance p99 ${ours.p99Ms.toFixed(2)} ms (target < 5 ms)`)
} finally {
  bare?.kill()
  appliance.kill()
  await appliance.exited
  rmSync(dataDir, { recursive: true, force: true })
}
