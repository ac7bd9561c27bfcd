// The SIP fuzz suite: mutated RFC 4475 and SIPp messages (sip-fuzz-corpus.ts, sip-fuzz-mutate.ts)
// sent over UDP, TCP and TLS to an appliance running in this process. Each case has its own
// socket or connection, so every answer on it belongs to that case. Checked: no answer is a 5xx
// (505 to a request whose version is not SIP/2.0 is the RFC's answer), a message malformed by
// construction gets 400 or nothing (never a 2xx), the appliance logs no handler failure and
// answers a valid OPTIONS on each transport after every batch, and the event loop never stalls.
// Used by test/integration/sip-fuzz.test.ts (fixed seed, short) and scripts/fuzz-sip.ts (long).
import dgram from 'node:dgram'
import net from 'node:net'
import tls from 'node:tls'
import { parseMessage, StreamFramer, type SipMessage } from '../../src/realtime/telephony/sip/index.ts'
import { LagProbe } from './lag-probe.ts'
import { optionsProbe, type Seed, type Target } from './sip-fuzz-corpus.ts'
import { mutate, rng, type Mutant } from './sip-fuzz-mutate.ts'

export type Transport = 'udp' | 'tcp' | 'tls'

export interface SipFuzzFinding {
  transport: Transport
  case: number
  seed: string
  kind: string
  problem: string
  /** The message sent, as latin1 text (cut to 2,000 characters), to replay it. */
  message: string
}

export interface SipFuzzOptions {
  target: Target
  ports: Record<Transport, number>
  seeds: Seed[]
  seed: number
  casesPerTransport: number
  /** Cases in flight at once on each transport. */
  concurrency?: number
  /** How long a case waits with no answer before it counts as dropped. */
  quietMs?: number
  /** False: the seeds are sent as they are (a calibration run of the lag probe). */
  mutate?: boolean
  /** Log lines of the appliance seen so far (handler failures are findings). */
  logFailures?: () => string[]
  /**
   * A batch whose lag reaches this is sent once more and the second figure kept: a message that
   * holds the loop does so every time, a collector pause or a busy core does not repeat with it.
   */
  lagRetryMs?: number
}

export interface SipFuzzRun {
  sent: number
  findings: SipFuzzFinding[]
  /** Answers by status code (0: dropped), per verdict. */
  answers: { malformed: Map<number, number>; any: Map<number, number> }
  worstLagMs: number
  /** The worst lag per transport, and the batch (first case) where it was seen. */
  lagByTransport: Partial<Record<Transport, { worstMs: number; atCase: number }>>
}

interface Client {
  send(b: Buffer): void
  close(): void
  messages: SipMessage[]
  closed: boolean
  onChange: () => void
}

async function client(transport: Transport, port: number): Promise<Client> {
  const c: Client = { send: () => {}, close: () => {}, messages: [], closed: false, onChange: () => {} }
  const take = (m: SipMessage) => {
    c.messages.push(m)
    c.onChange()
  }
  if (transport === 'udp') {
    const s = dgram.createSocket('udp4')
    s.on('message', (b) => {
      try {
        take(parseMessage(new Uint8Array(b)).message)
      } catch {}
    })
    await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()))
    c.send = (b) => s.send(b, port, '127.0.0.1')
    c.close = () => s.close()
    return c
  }
  const s = transport === 'tcp' ? net.connect({ host: '127.0.0.1', port }) : tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false })
  await new Promise<void>((r, j) => s.once(transport === 'tcp' ? 'connect' : 'secureConnect', () => r()).once('error', j))
  const framer = new StreamFramer()
  s.on('data', (b: Buffer) => {
    for (const ev of framer.push(new Uint8Array(b))) {
      if (!('message' in ev)) continue
      try {
        take(parseMessage(ev.message, false).message)
      } catch {}
    }
  })
  s.on('error', () => {})
  s.on('close', () => {
    c.closed = true
    c.onChange()
  })
  c.send = (b) => s.write(b)
  c.close = () => s.destroy()
  return c
}

/**
 * Sends `bytes` on a new client and gathers its answers until a final one, a close, or `quietMs`
 * of silence. Over UDP a valid OPTIONS follows on the same socket: its answer means the datagram
 * before it was handled (answers that come later still are missed, which can only hide a finding).
 */
async function exchange(transport: Transport, port: number, bytes: Buffer, quietMs: number, probe?: { bytes: Buffer; callId: string }): Promise<SipMessage[]> {
  const c = await client(transport, port)
  const isProbe = (m: SipMessage) => probe !== undefined && m.headers.some((h) => /^(call-id|i)$/i.test(h.name) && h.value.trim() === probe.callId)
  await new Promise<void>((done) => {
    let quiet: ReturnType<typeof setTimeout>
    let grace: ReturnType<typeof setTimeout> | undefined
    const rearm = () => {
      clearTimeout(quiet)
      quiet = setTimeout(done, quietMs)
    }
    c.onChange = () => {
      if (c.closed) return done()
      rearm()
      // a final answer, or the probe's: wait a moment for anything after it
      if (!grace && c.messages.some((m) => m.kind === 'response' && m.status >= 200)) grace = setTimeout(done, 30)
    }
    rearm()
    c.send(bytes)
    if (probe) c.send(probe.bytes)
  })
  c.close()
  return c.messages.filter((m) => !isProbe(m))
}

/** A valid OPTIONS on a fresh client of each transport gets 200 within `timeoutMs`. */
export async function stillAnswers(o: Pick<SipFuzzOptions, 'target' | 'ports'>, id: string, timeoutMs = 10_000): Promise<string[]> {
  const problems: string[] = []
  await Promise.all((['udp', 'tcp', 'tls'] as const).map(async (t) => {
    const c = await client(t, o.ports[t]).catch(() => undefined)
    if (!c) return problems.push(`${t}: cannot connect`)
    const callId = `${id}-${t}`
    const answered = new Promise<boolean>((res) => {
      const timer = setTimeout(() => res(false), timeoutMs)
      c.onChange = () => {
        if (c.messages.some((m) => m.kind === 'response' && m.status === 200)) res(true), clearTimeout(timer)
      }
    })
    c.send(optionsProbe(o.target, t.toUpperCase() as 'UDP', callId))
    if (!(await answered)) problems.push(`${t}: a valid OPTIONS got no 200`)
    c.close()
  }))
  return problems
}

function judge(m: Mutant, answers: SipMessage[]): string | undefined {
  const statuses = answers.flatMap((a) => (a.kind === 'response' ? [a.status] : []))
  const otherVersion = !/^[^\r\n]* SIP\/2\.0\r?\n/.test(m.bytes.toString('latin1'))
  const fivexx = statuses.find((s) => s >= 500 && !(s === 505 && otherVersion))
  if (fivexx) return `answered ${fivexx}`
  if (m.verdict !== 'malformed') return undefined
  const wrong = statuses.find((s) => s >= 200 && s !== 400)
  return wrong ? `malformed (${m.kind}) but answered ${wrong}` : undefined
}

/** Runs the cases of one seed on every transport; the lag probe runs throughout. */
export async function fuzzSip(o: SipFuzzOptions): Promise<SipFuzzRun> {
  const run: SipFuzzRun = { sent: 0, findings: [], answers: { malformed: new Map(), any: new Map() }, worstLagMs: 0, lagByTransport: {} }
  const lag = new LagProbe().start()
  const logsBefore = o.logFailures?.().length ?? 0
  try {
    for (const transport of ['udp', 'tcp', 'tls'] as const) {
      const r = rng(o.seed + transport.length * 7919)
      const cases = Array.from({ length: o.casesPerTransport }, (_, i) => {
        const seed = o.seeds[Math.floor(r() * o.seeds.length)]!
        const mutant: Mutant = o.mutate === false ? { kind: 'none', bytes: seed.bytes, verdict: 'any' } : mutate(seed.bytes, r, transport === 'udp' ? 65_000 : 140_000)
        if (seed.multi) mutant.verdict = 'any'
        return { i, seed: seed.name, mutant }
      })
      const batch = o.concurrency ?? 16
      const seen = { worstMs: 0, atCase: 0 }
      run.lagByTransport[transport] = seen
      for (let at = 0; at < cases.length; at += batch) {
        const send = (record: boolean) => Promise.all(cases.slice(at, at + batch).map(async ({ i, seed, mutant }) => {
          const callId = `fuzz-probe-${o.seed}-${i}${record ? '' : '-again'}`
          const probe = transport === 'udp' ? { bytes: optionsProbe(o.target, 'UDP', callId), callId } : undefined
          const answers = await exchange(transport, o.ports[transport], mutant.bytes, o.quietMs ?? (probe ? 2_000 : 150), probe)
          if (!record) return
          run.sent++
          const statuses = answers.flatMap((a) => (a.kind === 'response' ? [a.status] : []))
          const tally = run.answers[mutant.verdict]
          for (const s of statuses.length ? [statuses[statuses.length - 1]!] : [0]) tally.set(s, (tally.get(s) ?? 0) + 1)
          const problem = judge(mutant, answers)
          if (problem) run.findings.push({ transport, case: i, seed, kind: mutant.kind, problem, message: mutant.bytes.toString('latin1').slice(0, 2000) })
        }))
        lag.reset()
        await send(true)
        if (lag.worstMs >= (o.lagRetryMs ?? Infinity)) {
          lag.reset()
          await send(false)
        }
        if (lag.worstMs > seen.worstMs) Object.assign(seen, { worstMs: lag.worstMs, atCase: at })
        run.worstLagMs = Math.max(run.worstLagMs, lag.worstMs)
        if ((at / batch) % 4 === 3 || at + batch >= cases.length) {
          for (const problem of await stillAnswers(o, `fuzz-alive-${o.seed}-${transport}-${at}`)) {
            run.findings.push({ transport, case: at, seed: '-', kind: 'liveness', problem, message: '' })
          }
        }
      }
    }
  } finally {
    lag.stop()
  }
  for (const line of o.logFailures?.().slice(logsBefore) ?? []) run.findings.push({ transport: 'udp', case: -1, seed: '-', kind: 'log', problem: line.slice(0, 500), message: '' })
  return run
}
