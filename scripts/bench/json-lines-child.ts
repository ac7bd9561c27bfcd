// A helper process driven by JSON lines on stdin and answering JSON lines on stdout: the far
// ends of the media and voice benchmarks (and of the media pacing test) run this way, so their
// timing is measured outside the process under test.

// `idle`: the child runs under SCHED_IDLE, so it gets a core only when the process under test does
// not want it, as far ends on other machines would not compete with it at all.
const spawnChild = (script: string, idle: boolean, env: Record<string, string>) =>
  Bun.spawn([...(idle ? ['chrt', '--idle', '0'] : []), process.execPath, script], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit', env: { ...process.env, ...env } })

export class JsonLinesChild {
  private readonly lines: string[] = []
  private waiting: ((line: string) => void) | undefined
  readonly proc: ReturnType<typeof spawnChild>

  constructor(script: string, options: { idle?: boolean; env?: Record<string, string> } = {}) {
    this.proc = spawnChild(script, options.idle ?? false, options.env ?? {})
    void this.read()
  }

  private async read(): Promise<void> {
    const dec = new TextDecoder()
    let buf = ''
    for await (const chunk of this.proc.stdout) {
      buf += dec.decode(chunk)
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        const w = this.waiting
        this.waiting = undefined
        if (w) w(line)
        else this.lines.push(line)
      }
    }
  }

  send(msg: object): void {
    this.proc.stdin.write(JSON.stringify(msg) + '\n')
    this.proc.stdin.flush()
  }

  /** The next line the child writes, parsed. */
  next(): Promise<any> {
    const line = this.lines.shift()
    if (line !== undefined) return Promise.resolve(JSON.parse(line))
    return new Promise((resolve) => (this.waiting = (l) => resolve(JSON.parse(l))))
  }

  kill(): void {
    this.proc.kill()
  }
}
