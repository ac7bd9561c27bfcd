// What the HTTP benchmarks share: their flags, waiting for a server they started, and one
// measured wrk run (Debian package `wrk`) after a 2 s warm-up.

/** `--name N` from the command line, or `def`. */
export function benchArg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : def
}

/** Exits with a clear message when wrk is missing. */
export function requireWrk(): void {
  if (Bun.which('wrk')) return
  console.error('wrk is not installed: apt-get install -y wrk')
  process.exit(2)
}

/** Polls `url` until it answers 2xx (about `tries` x 50 ms); the response it got. */
export async function waitFor(url: string, headers: Record<string, string> = {}, tries = 200): Promise<Response> {
  for (let i = 0; i < tries; i++) {
    try {
      const res = await fetch(url, { headers })
      if (res.ok) return res
    } catch {}
    await Bun.sleep(50) // polling a process we started until it listens; not a test
  }
  throw new Error(`${url} did not come up`)
}

export interface WrkResult {
  rps: number
  p50Ms: number
  p99Ms: number
  non2xx: number
}

/** wrk against `url` with `connections` for `seconds`, after a 2 s warm-up (JIT, caches). */
export async function wrk(url: string, headers: Record<string, string>, o: { seconds: number; connections: number }): Promise<WrkResult> {
  const headerArgs = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`])
  const run = async (dur: number) => {
    const proc = Bun.spawn(['wrk', `-t${Math.min(2, o.connections)}`, `-c${o.connections}`, `-d${dur}s`, '--latency', ...headerArgs, url], { stdout: 'pipe' })
    const out = await new Response(proc.stdout).text()
    await proc.exited
    return out
  }
  await run(2)
  const out = await run(o.seconds)
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out)
    if (!m) throw new Error(`no ${label}% in wrk output:\n${out}`)
    const v = Number(m[1])
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v
  }
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1])
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
  return { rps, p50Ms: ms('50'), p99Ms: ms('99'), non2xx }
}
