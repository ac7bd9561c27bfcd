// The child processes of a process as /proc shows them (every thread's children), with their state:
// a child in state Z has exited and was never reaped (<defunct> in ps).
import { readdirSync, readFileSync } from 'node:fs'

export interface Child {
  pid: number
  state: string
  command: string
}

export function childrenOf(pid: number): Child[] {
  let tasks: string[]
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
  const pids = new Set<number>()
  for (const task of tasks) {
    try {
      for (const p of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) if (p) pids.add(Number(p))
    } catch {}
  }
  return [...pids].flatMap((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      return [{ pid: p, state: stat.slice(close + 2, close + 3), command: stat.slice(stat.indexOf('(') + 1, close) }]
    } catch {
      return [] // gone (reaped) meanwhile
    }
  })
}

/** Children that exited and were never reaped. */
export const zombiesOf = (pid: number): Child[] => childrenOf(pid).filter((c) => c.state === 'Z')

/** The Silero host processes (`voice-agent __silero-host`) a process's threads started and that still run. */
export function sileroHostsOf(pid: number): Child[] {
  return childrenOf(pid).filter((c) => {
    if (c.state === 'Z') return false
    try {
      return readFileSync(`/proc/${c.pid}/cmdline`, 'utf8').split('\0').includes('__silero-host')
    } catch {
      return false // gone meanwhile
    }
  })
}
