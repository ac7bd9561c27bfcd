// Benchmark: the appliance's resident memory idle with CALL_WORKERS=0, 1 and 2: after start
// (workers start with the first call), and once every worker has started (after a call, until
// CALL_WORKER_IDLE_MS stops them); and how long a worker takes to start (the first call waits).
// Each case runs in a fresh process, on the default engines (Silero VAD, flite).
//   bun run scripts/bench/call-workers-idle.ts
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const rssMb = () => Math.round(process.memoryUsage().rss / 1024 / 1024)

if (process.argv[2] === '--child') {
  const { startAppliance } = await import('../../src/app/appliance.ts')
  const { loadConfig } = await import('../../src/platform/config/index.ts')
  const { createLogger } = await import('../../src/platform/log.ts')
  const dir = mkdtempSync(join(tmpdir(), 'bench-idle-'))
  const config = loadConfig({}, { DATA_DIR: dir, HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, SIP_HOST: '127.0.0.1', SIP_PORT: 0, SIP_TLS_PORT: 0, LOG_LEVEL: 'silent', CALL_WORKERS: process.argv[3]! })
  const a = await startAppliance(config, createLogger('silent'))
  const settle = () => new Promise((r) => setTimeout(r, 3000)) // idle, as an operator's appliance mostly is
  Bun.gc(true)
  await settle()
  const idle = rssMb()
  const slots = (a.callPlacer as { slots?: { started(): Promise<void> }[] }).slots ?? []
  const t0 = performance.now()
  await Promise.all(slots.map((s) => s.started()))
  const startMs = performance.now() - t0
  Bun.gc(true)
  await settle()
  const warm = rssMb()
  await a.stop()
  rmSync(dir, { recursive: true, force: true })
  console.log(JSON.stringify({ idle, warm, startMs: Math.round(startMs) }))
  process.exit(0)
}

console.log('| CALL_WORKERS | idle RSS after start | idle RSS, workers started | ratio to 0 | worker start (all, parallel) |')
console.log('|---|---|---|---|---|')
let base = 0
for (const n of ['0', '1', '2']) {
  const p = Bun.spawnSync([process.execPath, import.meta.path, '--child', n], { stdout: 'pipe', stderr: 'inherit' })
  const r = JSON.parse(p.stdout.toString().trim().split('\n').pop()!) as { idle: number; warm: number; startMs: number }
  base ||= r.warm
  console.log(`| ${n} | ${r.idle} MB | ${r.warm} MB | ${(r.warm / base).toFixed(2)} | ${n === '0' ? '-' : `${r.startMs} ms`} |`)
}
console.log(`load average ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`)
