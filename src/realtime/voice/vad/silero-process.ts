// The parent's side of one Silero host process: starts it on a shared memory file, sends one
// batch at a time, and fails what is in flight when the process ends.
import type { Subprocess } from 'bun'
import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { helperCommand } from '../../../platform/embedded/index.ts'
import { decodeReply, encodeRequest, type HostReply, MessageReader, SHARED_BYTES, type SharedAreas, sharedAreas } from './silero-wire.ts'

/** The host ended (crashed, was killed or stopped) with requests in flight. */
export class SileroHostExited extends Error {}

interface Waiter {
  resolve(r: HostReply): void
  reject(e: Error): void
}

let files = 0

/** A new shared memory file: in /dev/shm (memory), or the temporary folder where that cannot be written. */
function sharedFile(): string {
  const name = `voice-agent-silero-${process.pid}-${++files}-${Math.random().toString(36).slice(2, 8)}`
  for (const dir of ['/dev/shm', tmpdir()]) {
    const file = join(dir, name)
    try {
      writeFileSync(file, new Uint8Array(SHARED_BYTES), { mode: 0o600 })
      return file
    } catch (err) {
      if (dir !== '/dev/shm') throw err
    }
  }
  throw new Error('unreachable')
}

export class SileroHostProcess {
  private readonly waiting: Waiter[] = []
  private ended: string | undefined
  private stderr = ''
  /** The request in flight: the next waits for it, since they share the memory. */
  private turn: Promise<unknown> = Promise.resolve()

  private constructor(
    private readonly proc: Subprocess<'pipe', 'pipe', 'pipe'>,
    private readonly areas: SharedAreas,
  ) {}

  /**
   * Starts a host on the model; resolves once the model is loaded, rejects with the host's reason.
   * The host ends by itself after `idleExitMs` without a request (0: never).
   */
  static async start(modelPath: string, idleExitMs: number): Promise<SileroHostProcess> {
    const file = sharedFile()
    try {
      const areas = sharedAreas(Bun.mmap(file, { shared: true }))
      const proc = Bun.spawn(helperCommand('sileroHost', modelPath, file, String(idleExitMs)), { stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
      // not unref'd: Bun then spins the event loop while it waits on the pipe (and in a worker
      // thread never delivers the pipe's data); close() or the idle release ends the host
      const host = new SileroHostProcess(proc, areas)
      const loaded = new Promise<HostReply>((resolve, reject) => host.waiting.push({ resolve, reject }))
      // the exit is handled once stdout is drained: a host that fails to load writes why, then exits
      const reading = host.read()
      const stderr = host.collectStderr()
      void Promise.all([proc.exited, reading, stderr]).then(([code]) => host.exited(code))
      const first = await loaded
      if (!first.ok) {
        await host.stop()
        throw new Error(first.error)
      }
      return host
    } finally {
      // both sides have it mapped (or the host failed): the name is no longer needed
      rmSync(file, { force: true })
    }
  }

  get pid(): number {
    return this.proc.pid
  }

  get alive(): boolean {
    return this.ended === undefined
  }

  /**
   * One batch: `fill` writes `rows` rows of `width` samples and their state ([2, rows, 128]) into
   * the shared areas, `take` reads the probabilities and the next state back. Batches run one at a time.
   */
  run(rows: number, width: number, sampleRate: number, fill: (a: SharedAreas) => void, take: (a: SharedAreas) => void): Promise<void> {
    const mine = this.turn.then(async () => {
      if (this.ended) throw new SileroHostExited(this.ended)
      fill(this.areas)
      const reply = await new Promise<HostReply>((resolve, reject) => {
        this.waiting.push({ resolve, reject })
        try {
          this.proc.stdin.write(encodeRequest({ rows, width, sampleRate }))
          this.proc.stdin.flush()
        } catch (err) {
          // the pipe broke before the exit was seen (EPIPE): the host is gone, as when it exited
          this.ended ??= `the Silero host's pipe closed (${(err as Error).message})`
          this.failAll(new SileroHostExited(this.ended))
        }
      })
      if (!reply.ok) throw new Error(`Silero: ${reply.error}`)
      take(this.areas)
    })
    this.turn = mine.catch(() => {})
    return mine
  }

  /**
   * Ends the host; resolves once it has exited. A thread about to be terminated waits for this:
   * a child whose exit its thread never collected stays a zombie until the appliance ends.
   */
  async stop(): Promise<void> {
    if (!this.ended) {
      this.ended = 'the Silero host was stopped'
      try {
        this.proc.stdin.end()
      } catch {}
      this.proc.kill('SIGTERM')
      this.failAll(new SileroHostExited(this.ended))
    }
    await this.proc.exited
  }

  private async read(): Promise<void> {
    const reader = new MessageReader()
    try {
      for await (const chunk of this.proc.stdout) {
        for (const body of reader.push(chunk)) this.waiting.shift()?.resolve(decodeReply(body))
      }
    } catch (err) {
      this.proc.kill('SIGKILL')
      this.failAll(new SileroHostExited(`the Silero host sent a bad reply: ${(err as Error).message}`))
    }
  }

  private async collectStderr(): Promise<void> {
    const decoder = new TextDecoder()
    for await (const chunk of this.proc.stderr) this.stderr = (this.stderr + decoder.decode(chunk)).slice(-2000)
  }

  private exited(code: number | null): void {
    this.ended ??= `the Silero host exited (${code ?? this.proc.signalCode})${this.stderr ? `: ${this.stderr.trim().split('\n').slice(-3).join('; ')}` : ''}`
    this.failAll(new SileroHostExited(this.ended))
  }

  private failAll(err: Error): void {
    for (const w of this.waiting.splice(0)) w.reject(err)
  }
}
