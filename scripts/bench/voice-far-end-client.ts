// The benchmark's handle on voice-far-end.ts running in a child process (JSON lines on stdio).
import { join } from 'node:path'
import { JsonLinesChild } from './json-lines-child.ts'

export class FarEnd {
  private readonly child = new JsonLinesChild(join(import.meta.dir, 'voice-far-end.ts'))

  private constructor(public url = '') {}

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
    await this.child.proc.exited
  }

  private send(msg: object): void {
    this.child.send(msg)
  }

  private next(): Promise<unknown> {
    return this.child.next()
  }
}
