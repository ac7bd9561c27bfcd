// Benchmark: the API on PostgreSQL against the same API on SQLite, in the same run. Two
// appliance processes (one on a SQLite file, one on a throwaway PostgreSQL cluster on this
// machine), loaded by wrk in turn on two routes: GET /api/workspaces/{id} (the cached hot path)
// and GET /api/agents?limit=20 (a query per request).
//   bun run scripts/bench/http-postgres.ts [--seconds 10] [--connections 50]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPostgres } from '../../test/helpers/postgres.ts'
import { benchArg, requireWrk, waitFor, wrk } from './wrk.ts'

const seconds = benchArg('seconds', 10)
const connections = benchArg('connections', 50)
const root = join(import.meta.dir, '..', '..')
requireWrk()

interface Running {
  base: string
  auth: Record<string, string>
  workspaceId: string
  stop(): Promise<void>
}

async function appliance(env: Record<string, string>, port: number): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pg-'))
  const proc = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env, ...env, DATA_DIR: dataDir, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port), SIP_PORT: '0', SIP_TLS_PORT: '0',
      LOG_LEVEL: 'silent', RATE_LIMIT_PER_SEC: '1000000000', RATE_LIMIT_BURST: '1000000000', STT_PROVIDER: 'none', LLM_PROVIDER: 'none', VAD_ENGINE: 'energy',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const base = `http://127.0.0.1:${port}`
  await waitFor(`${base}/health`, {}, 400)
  const auth = { authorization: `Bearer ${readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim()}` }
  const list = (await (await waitFor(`${base}/api/workspaces`, auth, 400)).json()) as { workspaces: { id: string }[] }
  for (let i = 0; i < 20; i++) {
    await fetch(`${base}/api/agents`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Agent ${i}` }) })
  }
  return {
    base, auth, workspaceId: list.workspaces[0]!.id,
    async stop() {
      proc.kill()
      await proc.exited
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

const cluster = await startPostgres()
const port = 41000 + Math.floor(Math.random() * 500)
let lite: Running | undefined
let pg: Running | undefined
try {
  lite = await appliance({}, port)
  pg = await appliance({ DATABASE_URL: await cluster.createDatabase('bench') }, port + 1)
  console.log(`${connections} connections, ${seconds} s each, wrk -t${Math.min(2, connections)}; both appliances and PostgreSQL on this machine`)
  console.log('| route | database | requests/s | p50 ms | p99 ms |')
  console.log('|---|---|---|---|---|')
  const ratios: string[] = []
  for (const [name, path] of [['GET /api/workspaces/{id}', (r: Running) => `/api/workspaces/${r.workspaceId}`], ['GET /api/agents?limit=20', () => '/api/agents?limit=20']] as const) {
    const a = await wrk(lite.base + path(lite), lite.auth, { seconds, connections })
    const b = await wrk(pg.base + path(pg), pg.auth, { seconds, connections })
    for (const [r, name] of [[a, 'SQLite'], [b, 'PostgreSQL']] as const) if (r.non2xx > 0) throw new Error(`non-2xx responses from the ${name} appliance`)
    console.log(`| ${name} | SQLite (baseline) | ${a.rps.toFixed(0)} | ${a.p50Ms.toFixed(2)} | ${a.p99Ms.toFixed(2)} |`)
    console.log(`| ${name} | PostgreSQL | ${b.rps.toFixed(0)} | ${b.p50Ms.toFixed(2)} | ${b.p99Ms.toFixed(2)} |`)
    ratios.push(`${name}: throughput ratio ${(b.rps / a.rps).toFixed(2)}, p50 ratio ${(b.p50Ms / a.p50Ms).toFixed(2)} (+${(b.p50Ms - a.p50Ms).toFixed(2)} ms)`)
  }
  for (const r of ratios) console.log(`PostgreSQL vs SQLite, ${r}`)
} finally {
  await lite?.stop()
  await pg?.stop()
  cluster.stop()
}
