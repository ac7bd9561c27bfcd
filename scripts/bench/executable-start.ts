// Benchmark: the compiled appliance from exec to `/health` 200 and to `/ready` ready, and its
// resident memory idle (2 s after the last start, and once the engines it loads at start have
// been unloaded again), against a bare Bun.serve compiled the same way in the same run.
//   bun run scripts/bench/executable-start.ts [--runs 10]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const runs = arg('runs', 10)
const root = join(import.meta.dir, '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'bench-start-'))

const build = (args: string[]) => {
  const p = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: 'pipe', stderr: 'pipe' })
  if (p.exitCode !== 0) throw new Error(p.stderr.toString())
}
const appliance = join(dir, 'voice-agent')
build(['scripts/build.ts', appliance])
const bareSrc = join(dir, 'bare.ts')
writeFileSync(bareSrc, "Bun.serve({ hostname: '127.0.0.1', port: Number(process.env.HTTP_PORT), fetch: () => Response.json({ status: 'ok' }) })\n")
const bare = join(dir, 'bare')
build(['build', '--compile', bareSrc, '--outfile', bare])

let port = 41000
const rssMb = async (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(await Bun.file(`/proc/${pid}/status`).text())![1]) / 1024

/** Whether /metrics shows an offline engine in memory (the bare server has no such gauge). */
const engineLoaded = async (port: number) => /^voice_agent_engine_loaded\{[^}]*\} 1$/m.test(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())

/** A start on `data` (a new folder: the first start, which migrates and bootstraps; else a restart). */
async function once(exe: string, idleMs: number, data: string): Promise<{ healthMs: number; readyMs: number; rssMb: number }> {
  const p0 = ++port
  const t0 = performance.now()
  const proc = Bun.spawn([exe], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: data, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(p0), SIP_HOST: '127.0.0.1', SIP_PORT: '0', SIP_TLS_PORT: '0', LOG_LEVEL: 'error', STT_PROVIDER: 'pocketsphinx' },
    stdout: 'ignore',
    stderr: 'ignore',
  })
  let healthMs = 0
  let readyMs = 0
  while (!readyMs) {
    try {
      if (!healthMs && (await fetch(`http://127.0.0.1:${p0}/health`)).ok) healthMs = performance.now() - t0
      if (healthMs) {
        const r = await fetch(`http://127.0.0.1:${p0}/ready`)
        // the bare server answers every path alike
        const body = (await r.json()) as { status: string }
        if (r.ok && (body.status === 'ready' || body.status === 'ok')) readyMs = performance.now() - t0
      }
    } catch {}
    if (!readyMs) await Bun.sleep(1) // polling a process we started until it answers; not a test
    if (performance.now() - t0 > 20_000) throw new Error(`${exe} did not start`)
  }
  await Bun.sleep(idleMs) // idle, as an operator's appliance mostly is
  // the appliance unloads the engines it loaded at start once all have loaded: read after that (10 s at most)
  for (const until = performance.now() + 10_000; idleMs > 0 && exe === appliance && performance.now() < until && (await engineLoaded(p0)); ) await Bun.sleep(100)
  const rss = await rssMb(proc.pid)
  proc.kill('SIGTERM')
  await proc.exited
  return { healthMs, readyMs, rssMb: rss }
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rows: Record<string, { first: number; health: number; ready: number; rss: number }> = {}
for (const [name, exe] of [['appliance', appliance], ['bare Bun.serve', bare]] as const) {
  const r: { healthMs: number; readyMs: number; rssMb: number }[] = []
  const data = mkdtempSync(join(dir, 'data-'))
  // the first start (also warms the page cache with the executable's bytes), then restarts
  const first = await once(exe, 0, data)
  for (let i = 0; i < runs; i++) r.push(await once(exe, i === runs - 1 ? 2000 : 0, data))
  rows[name] = { first: first.healthMs, health: p50(r.map((x) => x.healthMs)), ready: p50(r.map((x) => x.readyMs)), rss: r.at(-1)!.rssMb }
}
rmSync(dir, { recursive: true, force: true })
const [load] = (await Bun.file('/proc/loadavg').text()).split(' ')
console.log(`executable start, p50 of ${runs} restarts on an existing DATA_DIR (loadavg ${load}):`)
for (const [name, r] of Object.entries(rows)) {
  console.log(`  ${name.padEnd(15)} /health ${r.health.toFixed(0)} ms, /ready ${r.ready.toFixed(0)} ms, idle RSS ${r.rss.toFixed(0)} MB; first start /health ${r.first.toFixed(0)} ms`)
}
const a = rows.appliance!
const b = rows['bare Bun.serve']!
console.log(`  ratio appliance/bare: /health ${(a.health / b.health).toFixed(1)}x, RSS ${(a.rss / b.rss).toFixed(1)}x`)
