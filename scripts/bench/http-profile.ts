// In-process cost of one authenticated GET /api/workspaces/{id} through app.handle, split into
// its parts (each timed alone), next to a bare Response of the same JSON. Use with
// `bun --cpu-prof` for a full profile.
//   bun run scripts/bench/http-profile.ts [--requests 200000]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { authenticate } from '../../src/features/api-keys/index.ts'
import { hashKey } from '../../src/features/api-keys/keys.ts'
import { startAppliance } from '../../src/app/appliance.ts'
import { loadConfig } from '../../src/platform/config/index.ts'
import { createLogger } from '../../src/platform/log.ts'
import { findWorkspace } from '../../src/features/workspaces/workspaces.repository.ts'

const i = process.argv.indexOf('--requests')
const n = i > 0 ? Number(process.argv[i + 1]) : 200_000
const handleOnly = process.argv.includes('--handle-only')
const dir = mkdtempSync(join(tmpdir(), 'bench-http-profile-'))
const config = loadConfig({}, { HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, SIP_PORT: 0, SIP_TLS_PORT: 0, DATA_DIR: dir, LOG_LEVEL: 'info', RATE_LIMIT_PER_SEC: 1e9, RATE_LIMIT_BURST: 1e9 })
const appliance = await startAppliance(config, createLogger('info', pino.destination({ dest: '/dev/null', sync: true })))
try {
  const key = readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()
  const headers = { authorization: `Bearer ${key}` }
  const base = 'http://127.0.0.1'
  const list = (await (await appliance.app.handle(new Request(`${base}/api/workspaces`, { headers }))).json()) as { workspaces: { id: string }[] }
  const id = (list.workspaces[0] as { id: string }).id
  const url = `${base}/api/workspaces/${id}`
  const body = await (await appliance.app.handle(new Request(url, { headers }))).text()
  const db = appliance.database.db

  // The best of three rounds: the machine is shared, and interference only ever adds time.
  const time = async (label: string, fn: () => unknown) => {
    for (let k = 0; k < n / 10; k++) await fn()
    let best = Infinity
    for (let round = 0; round < 3; round++) {
      const t0 = performance.now()
      for (let k = 0; k < n; k++) await fn()
      best = Math.min(best, ((performance.now() - t0) * 1000) / n)
    }
    console.log(`${label.padEnd(52)} ${best.toFixed(2)} us`)
    return best
  }
  const bare = await time('bare: new Request + Response + text()', async () => {
    new Request(url, { headers })
    await new Response(body, { headers: { 'content-type': 'application/json' } }).text()
  })
  const full = await time('app.handle + text()', async () => (await appliance.app.handle(new Request(url, { headers }))).text())
  if (handleOnly) process.exit(0)
  await time('app.handle GET /health (no auth, no DB) + text()', async () => (await appliance.app.handle(new Request(`${base}/health`))).text())
  await time('  hashKey (SHA-256)', () => hashKey(key))
  await time('  authenticate, no cache (SHA-256 + key read)', () => authenticate(db, key, new Date()))
  await time('  findWorkspace (prepared read)', () => findWorkspace(db, id))
  await time('  pino log line with redaction (-> /dev/null)', () => appliance.log.info({ requestId: 'req_x_1', method: 'GET', path: '/api/workspaces/x', status: 200, ms: 0.12 }, 'request'))
  console.log(`app.handle / bare = ${(full / bare).toFixed(1)}`)
} finally {
  await appliance.stop()
  rmSync(dir, { recursive: true, force: true })
}
