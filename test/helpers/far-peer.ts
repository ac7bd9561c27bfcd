// The media benchmark's far end (scripts/bench/media-peer.ts) as a separate process, so timing
// is measured outside the process under test, as SIPp would.
import { join } from 'node:path'

export class FarPeer {
  private lines: string[] = []
  private waiting: ((line: string) => void) | undefined
  private readonly proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../scripts/bench/media-peer.ts')], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })

  constructor() {
    void (async () => {
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
    })()
  }

  send(msg: object): void {
    this.proc.stdin.write(JSON.stringify(msg) + '\n')
    this.proc.stdin.flush()
  }

  next(): Promise<unknown> {
    const line = this.lines.shift()
    if (line !== undefined) return Promise.resolve(JSON.parse(line))
    return new Promise((resolve) => (this.waiting = (l) => resolve(JSON.parse(l))))
  }

  kill(): void {
    this.proc.kill()
  }
}
