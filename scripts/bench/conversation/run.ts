// One run: the phones place a concurrency's calls over one transport, then the measured calls'
// records are read back from the appliance.
import type { JsonLinesChild } from '../json-lines-child.ts'
import type { CallRecord } from './analyse.ts'
import type { BenchAppliance } from './appliance.ts'
import type { Transport } from './args.ts'
import type { PhoneLog } from './log.ts'
import { scheduleOf } from './schedule.ts'

export interface RunTarget {
  /** The SIP number to call (its Request-URI user) and the agent behind it (web calls name it). */
  user: string
  agentId: string
}

export interface RunCalls {
  /** Every call's log, by the bench's id; the measured ones; the lines as scheduled. */
  all: Map<string, PhoneLog>
  logs: PhoneLog[]
  lines: string[][]
  /** The other (load) calls, and how many of them failed. */
  load: { calls: number; failed: number; errors: string[] }
}

export async function runCalls(phones: JsonLinesChild, a: BenchAppliance, target: RunTarget, transport: Transport, n: number, runIdx: number, lockstep: boolean, deadlineMs: number): Promise<RunCalls> {
  const { lines, measured } = scheduleOf(n, runIdx, lockstep)
  const web = { url: a.url, key: a.adminKey, agentId: target.agentId }
  phones.send({ cmd: 'calls', transport, sipPort: a.sipPort, user: target.user, web, lines, deadlineMs })
  const all = new Map<string, PhoneLog>()
  const logs: PhoneLog[] = []
  const load = { calls: 0, failed: 0, errors: [] as string[] }
  for (let msg = await phones.next(); !msg.done; msg = await phones.next()) {
    const call = msg.call as PhoneLog
    all.set(call.id, call)
    if (measured.includes(call.id)) logs.push(call)
    else {
      load.calls++
      if (!call.ok) (load.failed++, load.errors.push(`${call.id} ${call.error}`))
    }
  }
  return { all, logs, lines: lines.map((l) => l.ids), load }
}

const finished = (c: any): boolean => c?.status === 'ended' && Boolean(c.metrics)

/**
 * The records of these calls once every one has ended and been finalised, by the bench's id. A
 * SIP call's record has the bench's id as `from`; a web call's is read by its record id.
 */
export async function recordsOf(a: BenchAppliance, logs: readonly PhoneLog[], transport: Transport): Promise<Map<string, CallRecord>> {
  const found = new Map<string, CallRecord>()
  const ids = logs.map((l) => l.id)
  // a web call that never got its record id has none to wait for
  const web = logs.filter((l) => l.callId)
  const wanted = transport === 'web' ? web.length : ids.length
  for (let i = 0; found.size < wanted && i < 150; i++) {
    if (transport === 'web') {
      for (const l of web.filter((l) => !found.has(l.id))) {
        const res = await a.api('GET', `/api/calls/${l.callId}`)
        if (finished(res.body?.call)) found.set(l.id, res.body.call)
      }
    } else {
      const list = (await a.api('GET', '/api/calls?limit=100')).body.calls as any[]
      for (const c of list) {
        const id = String(c.from).replace(/^\+/, '')
        if (ids.includes(id) && finished(c)) found.set(id, c)
      }
    }
    if (found.size < wanted) await Bun.sleep(200) // polling another process's records
  }
  return found
}
