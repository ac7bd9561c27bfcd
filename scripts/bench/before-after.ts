// Runs one benchmark from two trees in the same run (rounds alternate which goes first) and
// prints each figure's median per tree and the ratio after / before. The figures are read from
// the benchmark's own output, so each tree runs its own copy of the benchmark.
//   bun run scripts/bench/before-after.ts --before TREE [--after TREE] [--rounds 2] http|voice-session [-- ARGS]
// A tree is a checkout (e.g. `git worktree add /tmp/before <commit>`) whose node_modules exists.
import { resolve } from 'node:path'
import { median } from './stats.ts'

type Figures = Record<string, number>

const BENCHES: Record<string, { script: string; figures(out: string): Figures }> = {
  http: {
    script: 'scripts/bench/http-workspace.ts',
    figures(out) {
      const row = (name: string) => out.split('\n').find((l) => l.startsWith(`| ${name}`))?.split('|').map((c) => Number(c.trim()))
      const bare = row('bare')
      const app = row('appliance')
      if (!bare || !app) throw new Error(`no result table in:\n${out}`)
      return { 'appliance requests/s': app[2]!, 'appliance p50 ms': app[3]!, 'appliance p99 ms': app[4]!, 'throughput ratio to bare Bun.serve': app[2]! / bare[2]! }
    },
  },
  'voice-session': {
    script: 'scripts/bench/voice-session.ts',
    figures(out) {
      const f: Figures = {}
      for (const block of out.split(/\n(?=\d+ calls, W=)/)) {
        const head = /^(\d+) calls, W=(\d+)/.exec(block)
        if (!head) continue
        const key = `${head[1]} calls W=${head[2]}`
        const rtp = /rtp .*?p50 ([\d.]+) p99 ([\d.]+)/.exec(block)
        const cpu = /CPU ([\d.]+)% of a core/.exec(block)
        if (rtp) Object.assign(f, { [`${key} rtp p50 ms`]: Number(rtp[1]), [`${key} rtp p99 ms`]: Number(rtp[2]) })
        if (cpu) f[`${key} CPU % per call`] = Number(cpu[1])
      }
      if (!Object.keys(f).length) throw new Error(`no figures in:\n${out}`)
      return f
    },
  },
}

const args = process.argv.slice(2)
const dash = args.indexOf('--')
const own = dash >= 0 ? args.slice(0, dash) : args
const passed = dash >= 0 ? args.slice(dash + 1) : []
const flag = (name: string) => {
  const i = own.indexOf(`--${name}`)
  return i >= 0 ? own[i + 1] : undefined
}
const name = own.find((a, i) => !a.startsWith('--') && !own[i - 1]?.startsWith('--'))
const bench = name ? BENCHES[name] : undefined
const before = flag('before')
if (!bench || !before) throw new Error(`usage: before-after.ts --before TREE [--after TREE] [--rounds N] ${Object.keys(BENCHES).join('|')} [-- ARGS]`)
const trees = { before: resolve(before), after: resolve(flag('after') ?? `${import.meta.dir}/../..`) }
const rounds = Number(flag('rounds') ?? 2)

const runs: Record<'before' | 'after', Figures[]> = { before: [], after: [] }
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)
  for (const which of order) {
    const tree = trees[which]
    console.log(`\n## round ${r + 1}, ${which} (${tree})`)
    const p = Bun.spawnSync([process.execPath, 'run', bench.script, ...passed], { cwd: tree, stdout: 'pipe', stderr: 'inherit' })
    const out = p.stdout.toString()
    console.log(out.trimEnd())
    if (p.exitCode !== 0) throw new Error(`the ${which} run failed (exit ${p.exitCode})`)
    runs[which].push(bench.figures(out))
  }
}

console.log(`\n## ${name}: medians of ${rounds} rounds; ratio = after / before`)
console.log('| figure | before | after | ratio |')
console.log('|---|---|---|---|')
for (const key of Object.keys(runs.after[0]!)) {
  const b = median(runs.before.map((f) => f[key]!).filter((x) => x !== undefined))
  const a = median(runs.after.map((f) => f[key]!))
  console.log(`| ${key} | ${b.toFixed(2)} | ${a.toFixed(2)} | ${(a / b).toFixed(2)} |`)
}
console.log(`load average ${(await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ')}`)
