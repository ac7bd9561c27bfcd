// CPU per call as the kernel counts it (issue 27). /proc/<pid>/stat's utime + stime is the whole
// appliance process: every thread (main, call workers, decoder threads), ended ones included. Its
// child processes (the Silero hosts) are read from /proc as well, since their time reaches the
// parent's cutime only once they end. Sampled every second through a run; the run's figure is the
// CPU spent over its steady window divided by the call-seconds up in that window.
import { readdirSync, readFileSync } from 'node:fs'
import type { PhoneLog } from './log.ts'

/** USER_HZ: the unit of /proc's times on Linux. */
const TICK_MS = 10

export interface CpuSample {
  at: number
  /** The process, every thread, ms. */
  processMs: number
  /** Its main thread (the event loop that carries web calls and the HTTP API). */
  mainMs: number
  /** Its child processes and theirs (the Silero hosts), live ones read directly, ended ones as cutime. */
  childrenMs: number
  /** The process's live threads by name. */
  threads: Record<string, number>
  /** The whole machine's busy time, every core (/proc/stat). */
  machineMs: number
}

interface Stat {
  comm: string
  cpuMs: number
  reapedMs: number
}

function stat(path: string): Stat | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined // the thread or process ended
  }
  const close = text.lastIndexOf(')')
  const f = text.slice(close + 2).split(' ') // from field 3 (state)
  return { comm: text.slice(text.indexOf('(') + 1, close), cpuMs: (Number(f[11]) + Number(f[12])) * TICK_MS, reapedMs: (Number(f[13]) + Number(f[14])) * TICK_MS }
}

const tasks = (pid: number) => {
  try {
    return readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
}

function childrenOf(pid: number): number[] {
  return tasks(pid).flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
    } catch {
      return []
    }
  })
}

/** The CPU time of `pid`'s process tree. */
function treeMs(pid: number): number {
  const s = stat(`/proc/${pid}/stat`)
  return s ? s.cpuMs + s.reapedMs + childrenOf(pid).reduce((n, c) => n + treeMs(c), 0) : 0
}

function machineBusyMs(): number {
  const f = readFileSync('/proc/stat', 'utf8').slice(0, 200).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal: all but idle and iowait
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + (f[7] ?? 0)) * TICK_MS
}

export function cpuSample(pid: number): CpuSample {
  const own = stat(`/proc/${pid}/stat`)
  const threads: Record<string, number> = {}
  for (const tid of tasks(pid)) {
    const t = stat(`/proc/${pid}/task/${tid}/stat`)
    if (t) threads[t.comm] = (threads[t.comm] ?? 0) + t.cpuMs
  }
  return {
    at: performance.timeOrigin + performance.now(),
    processMs: own?.cpuMs ?? 0,
    mainMs: stat(`/proc/${pid}/task/${pid}/stat`)?.cpuMs ?? 0,
    childrenMs: (own?.reapedMs ?? 0) + childrenOf(pid).reduce((n, c) => n + treeMs(c), 0),
    threads,
    machineMs: machineBusyMs(),
  }
}

export interface CpuSampler {
  samples: CpuSample[]
  /** Takes a sample now (a window's exact edge); returns its time. */
  mark(): number
  stop(): void
}

/** Samples `pid` every `everyMs` until stopped. */
export function sampleCpu(pid: number, everyMs = 1000): CpuSampler {
  const samples = [cpuSample(pid)]
  const mark = () => samples[samples.push(cpuSample(pid)) - 1]!.at
  const timer = setInterval(mark, everyMs)
  return { samples, mark, stop: () => clearInterval(timer) }
}

/**
 * Waits until the appliance is near idle (the previous run's leftovers, such as an overloaded
 * decoder's backlog, done): under `busyMsPerS` over a second, or `limitMs` passed. Returns how long it waited.
 */
export async function settle(pid: number, busyMsPerS = 150, limitMs = 120_000): Promise<{ waitedMs: number; settled: boolean }> {
  const from = performance.now()
  const busy = (s: CpuSample) => s.processMs + s.childrenMs
  let last = cpuSample(pid)
  while (performance.now() - from < limitMs) {
    await Bun.sleep(1000) // measuring a second of the other process's CPU
    const now = cpuSample(pid)
    const rate = ((busy(now) - busy(last)) * 1000) / (now.at - last.at)
    last = now
    if (rate < busyMsPerS) return { waitedMs: Math.round(performance.now() - from), settled: true }
  }
  return { waitedMs: Math.round(performance.now() - from), settled: false }
}

type Key = 'processMs' | 'mainMs' | 'childrenMs' | 'machineMs'

/** A counter at time `t`, linear between the samples around it. */
function at(samples: readonly CpuSample[], t: number, key: Key): number {
  const i = samples.findIndex((s) => s.at >= t)
  if (i <= 0) return i === 0 ? samples[0]![key] : samples.at(-1)![key]
  const [a, b] = [samples[i - 1]!, samples[i]!]
  return a[key] + ((b[key] - a[key]) * (t - a.at)) / (b.at - a.at)
}

const nearest = (samples: readonly CpuSample[], t: number) => samples.reduce((best, s) => (Math.abs(s.at - t) < Math.abs(best.at - t) ? s : best))

export interface Window {
  start: number
  end: number
}

/**
 * Where the run's concurrency held: from when every line had a call up to when the first line's
 * last call ended (a single call: the call itself). A line one of whose calls was refused ends
 * early, so it does not bound the end (its calls still count as call-seconds).
 */
export function steadyWindow(lines: readonly string[][], logs: ReadonlyMap<string, PhoneLog>): Window | undefined {
  const answered = (id: string) => logs.get(id)?.answeredAt || undefined
  const up = lines.map((ids) => ids.map(answered).find((t) => t !== undefined))
  const whole = lines.filter((ids) => ids.every((id) => answered(id) !== undefined))
  const down = whole.map((ids) => logs.get(ids.at(-1)!)!.endedAt)
  if (up.some((t) => t === undefined) || !down.length) return undefined
  const w = { start: Math.max(...(up as number[])), end: Math.min(...down) }
  return w.end > w.start ? w : undefined
}

/** Seconds of calls up (answered, not yet ended) inside the window. */
export function callSeconds(logs: Iterable<PhoneLog>, w: Window): number {
  let ms = 0
  for (const l of logs) if (l.answeredAt) ms += Math.max(0, Math.min(l.endedAt, w.end) - Math.max(l.answeredAt, w.start))
  return ms / 1000
}

export interface CpuFigures {
  windowS: number
  /** Mean calls up in the window. */
  callsUp: number
  /** Appliance CPU (process and its child processes) per second of call, ms; net: less its idle rate. */
  perCallS: number
  netPerCallS: number
  /** Of it: the main thread, the other threads, the child processes. */
  mainPerCallS: number
  otherThreadsPerCallS: number
  childrenPerCallS: number
  /** The appliance idle before the run, ms per second. */
  idleMsPerS: number
  /** The far-end phones' process per second of call (what the client side cost). */
  phonesPerCallS?: number
  /** Cores busy over the window: the whole machine, and all but the appliance and the phones (the bench, the fakes, other users). */
  machineCores: number
  restCores: number
  /** ms in the window by thread name, largest first. */
  threads: [string, number][]
}

const spent = (s: readonly CpuSample[], w: Window, key: Key) => at(s, w.end, key) - at(s, w.start, key)
const total = (s: readonly CpuSample[], w: Window) => spent(s, w, 'processMs') + spent(s, w, 'childrenMs')

export function cpuFigures(appliance: readonly CpuSample[], phones: readonly CpuSample[], w: Window, idle: Window, callS: number): CpuFigures {
  const windowS = (w.end - w.start) / 1000
  const idleMsPerS = total(appliance, idle) / ((idle.end - idle.start) / 1000)
  const all = total(appliance, w)
  const main = spent(appliance, w, 'mainMs')
  const kids = spent(appliance, w, 'childrenMs')
  const [a, b] = [nearest(appliance, w.start).threads, nearest(appliance, w.end).threads]
  const threads = Object.keys(b)
    .map((k): [string, number] => [k, Math.round(b[k]! - (a[k] ?? 0))])
    .sort((x, y) => y[1] - x[1])
  const per = (ms: number) => round(ms / callS)
  return {
    windowS: round(windowS),
    callsUp: round(callS / windowS),
    perCallS: per(all),
    netPerCallS: per(all - idleMsPerS * windowS),
    mainPerCallS: per(main),
    otherThreadsPerCallS: per(all - main - kids),
    childrenPerCallS: per(kids),
    idleMsPerS: round(idleMsPerS),
    phonesPerCallS: phones.length > 1 ? per(total(phones, w)) : undefined,
    machineCores: round2(spent(appliance, w, 'machineMs') / (windowS * 1000)),
    restCores: round2((spent(appliance, w, 'machineMs') - all - (phones.length > 1 ? total(phones, w) : 0)) / (windowS * 1000)),
    threads,
  }
}

const round = (v: number) => Math.round(v * 10) / 10
const round2 = (v: number) => Math.round(v * 100) / 100
