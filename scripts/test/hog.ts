// A CPU hog: one busy loop per core, in processes of their own, for the busy pass. What the suite
// must survive is a machine whose every core is taken by other work.
import { spawn, type Subprocess } from 'bun'
import { availableParallelism } from 'node:os'

export interface Hog {
  readonly loops: number
  stop(): Promise<void>
}

export function startHog(loops = availableParallelism()): Hog {
  const procs: Subprocess[] = []
  for (let i = 0; i < loops; i++) {
    procs.push(spawn([process.execPath, '-e', 'for (;;) {}'], { stdout: 'ignore', stderr: 'ignore' }))
  }
  return {
    loops,
    async stop() {
      for (const p of procs) p.kill('SIGKILL')
      await Promise.all(procs.map((p) => p.exited))
    },
  }
}
