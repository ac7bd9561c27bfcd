// The benchmark's handle on voice-far-end.ts running in a child process (JSON lines on stdio).
import { join } from 'node:path'

export class FarEnd {
  private lines: string[] = []
  private waiting: ((line: string) => void) | undefined
  private readonly proc = Bun.spawn([process.execPath, join(import.meta.dir, 'voice-far-end.ts')], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' })

  private constructor(public url = '') {
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

  static async start(): Promise<FarEnd> {
    const far = new FarEnd()
    far.url = ((await far.next()) as { url: string }).url
    return far
  }

  /** One phone per target port; each talks after its lead of silence. Returns the phones' ports. */
  async open(targets: number[], leadMs: number[]): Promise<number[]> {
    this.send({ cmd: 'open', targets, leadMs })
    return ((await this.next()) as { ports: number[] }).ports
  }

  startTalking(): void {
    this.send({ cmd: 'start' })
  }

  /** Stops the phones; per phone, the absolute arrival times (ms) of marked agent packets. */
  async stop(): Promise<number[][]> {
    this.send({ cmd: 'stop' })
    return ((await this.next()) as { talkspurts: number[][] }).talkspurts
  }

  async exit(): Promise<void> {
    this.send({ cmd: 'exit' })
    await this.proc.exited
  }

  private send(msg: object): void {
    this.proc.stdin.write(JSON.stringify(msg) + '\n')
    this.proc.stdin.flush()
  }

  private next(): Promise<unknown> {
    const line = this.lines.shift()
    if (line !== undefined) return Promise.resolve(JSON.parse(line))
    return new Promise((resolve) => (this.waiting = (l) => resolve(JSON.parse(l))))
  }
}
