// The 4,527 PROTOS c07-sip cases against a running user agent: it stays alive, answers the
// valid control case after every 100 cases, and comes back to its baseline of transactions,
// calls, connections, file handles and memory at the end.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { UserAgent, header, type SipMessage } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { sipTestdataDir } from '../../helpers/sip-testdata.ts'
import { until } from '../../helpers/until.ts'

const NUMBER = '15550004444'
const UDP_MAX = 65_000

let ua: UserAgent
/** Exceptions caught inside the agent's message handler or its INVITE path: must stay empty. */
const handlerErrors: unknown[] = []
let casesDir: string
let workDir: string

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'protos-'))
  const tar = Bun.spawnSync(['tar', 'xzf', join(sipTestdataDir(), 'protos-c07-sip-cases.tar.gz'), '-C', workDir])
  if (tar.exitCode !== 0) throw new Error(tar.stderr.toString())
  casesDir = join(workDir, 'protos-c07-sip', 'cases')
  const directory = new InMemoryNumberDirectory([{ number: NUMBER, trunkSources: ['127.0.0.1'] }])
  // the refusal rate limit is off: every malformed case must reach the parser
  ua = new UserAgent({ host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, directory, refusalsPerSec: 0, ringTimeoutMs: 2000,
    log: { debug: (o: object) => void ((o as { where?: string }).where === 'message handler' && handlerErrors.push(o)), warn: (o: object) => void handlerErrors.push(o) }, timers: { t1: 20, t2: 160, t4: 100, timerD: 100 } })
  ua.on('call', (call) => call.ringing())
  await ua.start()
})

afterAll(async () => {
  await ua.stop()
  rmSync(workDir, { recursive: true, force: true })
})

/** A case file holds length-prefixed messages: `<decimal length> <bytes>`, twice. */
function splitCase(buf: Buffer): Buffer[] {
  const out: Buffer[] = []
  let i = 0
  while (i < buf.length) {
    const sp = buf.indexOf(0x20, i)
    const len = Number(buf.subarray(i, sp).toString('latin1'))
    if (sp < 0 || !Number.isInteger(len)) break
    out.push(buf.subarray(sp + 1, sp + 1 + len))
    i = sp + 1 + len
  }
  return out
}

function fill(msg: Buffer, n: number, port: number): Buffer {
  const s = msg.toString('latin1')
  const vars: Record<string, string> = {
    '<To>': `${NUMBER}@127.0.0.1`, '<From>': 'protos@127.0.0.1', '<From-Address>': '127.0.0.1', '<From-IP>': '127.0.0.1',
    '<Local-Port>': String(port), '<Branch-ID>': `c${n}`, '<Call-ID>': `protos${n}`, '<CSeq>': '1', '<Teardown-Method>': 'CANCEL',
  }
  let out = s.replace(/<(To|From|From-Address|From-IP|Local-Port|Branch-ID|Call-ID|CSeq|Teardown-Method)>/g, (m) => vars[m]!)
  const bodyAt = out.indexOf('\r\n\r\n')
  const bodyLength = bodyAt < 0 ? 0 : Buffer.byteLength(out.slice(bodyAt + 4), 'latin1')
  out = out.replaceAll('<Content-Length>', String(bodyLength))
  return Buffer.from(out, 'latin1')
}

async function synced(peer: SipPeer, i: number): Promise<void> {
  peer.send(
    `OPTIONS sip:${NUMBER}@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bKsync${i}\r\n` +
      `From: <sip:protos@127.0.0.1>;tag=s\r\nTo: <sip:${NUMBER}@127.0.0.1>\r\nCall-ID: sync${i}\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`,
  )
  await peer.waitFor((m) => m.kind === 'response' && header(m, 'call-id') === `sync${i}`)
}

const fdCount = () => readdirSync('/proc/self/fd').length

test('all PROTOS c07-sip cases: alive, control answered every 100 cases, back to baseline', async () => {
  const names = readdirSync(casesDir).sort()
  expect(names).toHaveLength(4527)
  const peer = await SipPeer.udp(ua.ports.udp!)
  const control = splitCase(readFileSync(join(casesDir, '0000000')))

  let controls = 0
  const controlAnswered = async () => {
    const n = 1_000_000 + ++controls
    const [inv, cancel] = control.map((m) => fill(m, n, peer.port))
    peer.send(inv!)
    await peer.waitFor((m: SipMessage) => m.kind === 'response' && m.status === 180 && header(m, 'call-id') === `protos${n}@127.0.0.1`)
    peer.send(cancel!)
  }
  await controlAnswered()
  Bun.gc(true)
  const baseline = { fds: fdCount(), heap: process.memoryUsage().heapUsed }

  let streamed = 0
  for (let i = 0; i < names.length; i++) {
    const messages = splitCase(readFileSync(join(casesDir, names[i]!))).map((m) => fill(m, i, peer.port))
    if (messages.some((m) => m.length > UDP_MAX)) {
      // too big for a datagram: over TCP, where the 64 KiB limit closes the connection
      streamed++
      const s = net.connect({ host: '127.0.0.1', port: ua.ports.tcp! })
      s.on('error', () => {})
      await new Promise<void>((r) => s.once('connect', () => r()))
      for (const m of messages) s.write(m)
      await new Promise<void>((r) => s.once('close', () => r()))
    } else for (const m of messages) peer.send(m)
    // answers come in order, so an answered probe means every earlier datagram was read: flow
    // control that keeps the socket buffer from overflowing
    try {
      if (i % 100 === 99) await controlAnswered()
      else if (i % 10 === 9 || messages.some((m) => m.length > 8000)) await synced(peer, i)
    } catch (err) {
      throw new Error(`no answer after case ${names[i]}: ${(err as Error).message}`)
    }
    peer.received.length = 0
  }
  await controlAnswered()
  expect(controls).toBe(47)
  expect(streamed).toBeGreaterThan(0)

  await until(() => {
    const s = ua.stats()
    return s.serverTransactions === 0 && s.clientTransactions === 0 && s.calls === 0 && s.dialogs === 0 && s.connections === 0
  }, 15_000, 'the user agent to return to idle')
  // the peer kept every answer (PROTOS never ACKs, so final answers are repeated until Timer H)
  peer.close()
  peer.received.length = 0
  Bun.gc(true)
  expect(handlerErrors).toEqual([])
  expect(fdCount()).toBeLessThanOrEqual(baseline.fds)
  expect(process.memoryUsage().heapUsed - baseline.heap).toBeLessThan(8 * 1024 * 1024)
}, 240_000)
