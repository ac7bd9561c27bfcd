// SIPp as a campaign's callees (test/fixtures/sip/uas-campaign.xml), and what its own message
// log says: how many calls were up at once, and how many INVITEs each number got.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort, scenarioFrom, sipp, type SippProcess } from './sipp.ts'
import { greetingWavForSipp, HUMAN_GREETINGS, MACHINE_GREETINGS } from './greetings.ts'
import { tempDir } from './tmp.ts'

const FIXTURES = join(import.meta.dir, '../fixtures/sip')

export interface Callees {
  port: number
  proc: SippProcess
  messageFile: string
}

/** Starts SIPp for `calls` calls; numbers +14155550KNN pick the callee kind K (see the scenario). */
export async function startCallees(calls: number, timeoutSec: number): Promise<Callees> {
  const dir = tempDir('callees-')
  const human = greetingWavForSipp({ ...HUMAN_GREETINGS[0]!, tailMs: 6000 }, dir, 'human')
  const machine = greetingWavForSipp({ ...MACHINE_GREETINGS[0]!, tailMs: 3000 }, dir, 'machine')
  const scenario = scenarioFrom(join(FIXTURES, 'uas-campaign.xml'), { HUMAN: human, MACHINE: machine })
  const port = await freePort()
  const rtp = 30000 + 200 * Math.floor(Math.random() * 100)
  const messageFile = join(dir, 'messages.log')
  const proc = sipp(
    ['-sf', scenario, '-i', '127.0.0.1', '-p', String(port), '-mi', '127.0.0.1', '-mp', String(rtp),
      '-m', String(calls), '-trace_msg', '-message_file', messageFile],
    timeoutSec,
  )
  return { port, proc, messageFile }
}

export interface SippMessage {
  timeMs: number
  received: boolean
  firstLine: string
  callId: string
  to: string
}

/** Parses SIPp's -trace_msg log. */
export function readMessages(file: string): SippMessage[] {
  const text = readFileSync(file, 'utf8')
  const out: SippMessage[] = []
  const parts = text.split(/^-{20,}\s+/m).slice(1)
  for (const part of parts) {
    const head = /^(\d{4}-\d\d-\d\d)\s+(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(part)
    if (!head) continue
    const lines = part.split('\n')
    const start = lines.findIndex((l) => /^(SIP\/2\.0 \d{3}|[A-Z]+ \S+ SIP\/2\.0)/.test(l.trim()))
    if (start < 0) continue
    const header = (name: string) => lines.find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim() ?? ''
    out.push({
      timeMs: Date.parse(`${head[1]}T${head[2]}Z`),
      received: /received/i.test(lines.slice(0, start).join(' ')),
      firstLine: lines[start]!.trim(),
      callId: header('Call-ID'),
      to: /(\+\d+)/.exec(header('To'))?.[1] ?? '',
    })
  }
  return out
}

/** INVITEs (not retransmissions: distinct Call-IDs) per dialled number. */
export function invitesByNumber(messages: SippMessage[]): Map<string, number> {
  const seen = new Set<string>()
  const counts = new Map<string, number>()
  for (const m of messages) {
    if (!m.received || !m.firstLine.startsWith('INVITE ') || seen.has(m.callId)) continue
    seen.add(m.callId)
    counts.set(m.to, (counts.get(m.to) ?? 0) + 1)
  }
  return counts
}

/** The most calls up at once: each call from its first INVITE to its last message. */
export function maxSimultaneous(messages: SippMessage[]): number {
  const span = new Map<string, [number, number]>()
  for (const m of messages) {
    const s = span.get(m.callId)
    if (!s) {
      if (m.received && m.firstLine.startsWith('INVITE ')) span.set(m.callId, [m.timeMs, m.timeMs])
    } else s[1] = Math.max(s[1], m.timeMs)
  }
  const edges = [...span.values()].flatMap(([a, b]) => [[a, 1], [b, -1]] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1])
  let now = 0
  let max = 0
  for (const [, d] of edges) max = Math.max(max, (now += d))
  return max
}
