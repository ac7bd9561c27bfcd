// Benchmark: what a call worker thread loads before it can take a call: the src modules it
// imports (counted from the thread's own module registry), the time from `new Worker` to its
// first message (it posts 'listening' once its modules have loaded), and the process memory it
// adds. Each tree is measured in fresh processes, interleaved, so two trees compare in one run:
//   bun run scripts/bench/call-worker-load.ts [--runs 7] [--source BEFORE_TREE] [--source AFTER_TREE]
// Without --source it measures this checkout.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import { median } from './stats.ts'

const rssMb = () => process.memoryUsage().rss / 1024 / 1024
// where a file is in this layout, or was before src/ was grouped into layers
const inTree = (tree: string, ...paths: string[]) => paths.map((p) => join(tree, p)).find(existsSync) ?? join(tree, paths[0]!)

if (process.argv[2] === '--child') {
  const tree = process.argv[3]!
  const { loadConfig } = await import(inTree(tree, 'src/platform/config/index.ts', 'src/config.ts'))
  const config = loadConfig({}, { DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent' })
  const probe = join(import.meta.dir, 'call-worker-load-probe.ts')
  Bun.gc(true)
  const before = rssMb()
  const t0 = performance.now()
  const w = new Worker(probe, { workerData: { config, index: 0, rtp: { min: 40000, max: 40100 }, entry: inTree(tree, 'src/features/calls/workers/call-worker.ts', 'src/calls/workers/call-worker.ts') } })
  const loaded = await new Promise<string[]>((res, rej) => {
    w.on('message', (m: { t: string; modules?: string[] }) => m.t === 'loaded' && res(m.modules!))
    w.on('error', rej)
  })
  const startMs = performance.now() - t0
  Bun.gc(true)
  const after = rssMb()
  const src = join(tree, 'src') + '/'
  const modules = loaded.filter((m) => m.startsWith(src)).length
  await w.terminate()
  console.log(JSON.stringify({ modules, startMs, memMb: after - before }))
  process.exit(0)
}

const args = process.argv.slice(2)
const flag = (name: string) => args.flatMap((a, i) => (a === `--${name}` ? [args[i + 1]!] : []))
const runs = Number(flag('runs')[0] ?? 7)
const trees = (flag('source').length ? flag('source') : [join(import.meta.dir, '..', '..')]).map((t) => resolve(t))

const srcCount = (dir: string): number =>
  readdirSync(dir).reduce((n, name) => {
    const p = join(dir, name)
    return n + (statSync(p).isDirectory() ? srcCount(p) : name.endsWith('.ts') ? 1 : 0)
  }, 0)

const results = trees.map(() => [] as { modules: number; startMs: number; memMb: number }[])
for (let r = 0; r < runs; r++) {
  trees.forEach((tree, i) => {
    const p = Bun.spawnSync([process.execPath, import.meta.path, '--child', tree], { stdout: 'pipe', stderr: 'inherit' })
    if (p.exitCode !== 0) throw new Error(`the probe of ${tree} failed`)
    results[i]!.push(JSON.parse(p.stdout.toString().trim().split('\n').pop()!))
  })
}

console.log(`call worker thread, ${runs} fresh processes per tree, medians`)
console.log('| tree | src modules loaded / src files | start to listening | memory added | ratio (start, memory) to the first tree |')
console.log('|---|---|---|---|---|')
const first = results[0]!
trees.forEach((tree, i) => {
  const rs = results[i]!
  const start = median(rs.map((x) => x.startMs))
  const mem = median(rs.map((x) => x.memMb))
  const ratio = `${(start / median(first.map((x) => x.startMs))).toFixed(2)}, ${(mem / median(first.map((x) => x.memMb))).toFixed(2)}`
  console.log(`| ${tree} | ${rs[0]!.modules} / ${srcCount(join(tree, 'src'))} | ${start.toFixed(0)} ms | ${mem.toFixed(1)} MB | ${ratio} |`)
})
console.log(`load average ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`)
