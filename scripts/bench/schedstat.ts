// How long this process's threads waited for a core: the kernel's per-thread schedstat (time on
// a CPU, time runnable but waiting on a run queue). A media thread that is late while it waited
// on a run queue was held back by the machine (other threads, the far ends, the kernel's own
// packet work), not by its own event loop.
import { readdirSync, readFileSync } from 'node:fs'

export type ThreadTimes = Map<string, { runNs: number; waitNs: number }>

export function threadTimes(): ThreadTimes {
  const out: ThreadTimes = new Map()
  let tids: string[] = []
  try {
    tids = readdirSync('/proc/self/task')
  } catch {
    return out // not Linux: no figures
  }
  for (const tid of tids) {
    try {
      const [run, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ').map(Number)
      out.set(tid, { runNs: run!, waitNs: wait! })
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out
}

/**
 * Over the window from `before` to now: the run-queue wait, in ms per second of wall time, of
 * the busiest thread (the media thread, or the busiest call worker) and of all threads together.
 */
export function runQueueWait(before: ThreadTimes, wallMs: number): { busiestMsPerS: number; allMsPerS: number } {
  let busiestRun = -1
  let busiestWait = 0
  let all = 0
  for (const [tid, now] of threadTimes()) {
    const b = before.get(tid) ?? { runNs: 0, waitNs: 0 }
    const run = now.runNs - b.runNs
    const wait = now.waitNs - b.waitNs
    all += wait
    if (run > busiestRun) {
      busiestRun = run
      busiestWait = wait
    }
  }
  const perS = (ns: number) => ns / 1e6 / (wallMs / 1000)
  return { busiestMsPerS: perS(busiestWait), allMsPerS: perS(all) }
}
