// Seeded random mutations of the RFC 4475 messages (bytes flipped, cut, repeated, lines
// swapped) over UDP and TCP: the agent never throws inside its message handler and keeps
// answering.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { header, UserAgent } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { SipPeer } from '../../helpers/sip-peer.ts'
import { sipTestdataDir } from '../../helpers/sip-testdata.ts'

let ua: UserAgent
const handlerErrors: unknown[] = []

beforeAll(async () => {
  ua = new UserAgent({
    host: '127.0.0.1', publicHost: '127.0.0.1', port: 0, refusalsPerSec: 0, ringTimeoutMs: 500,
    directory: new InMemoryNumberDirectory(['user', 'vivekg', 'UserB'].map((number) => ({ number, trunkSources: ['127.0.0.1'] }))),
    timers: { t1: 10, t2: 80, t4: 50, timerD: 50 },
    log: {
      debug: (o: object, msg?: string) => {
        if ((o as { where?: string }).where === 'message handler') handlerErrors.push(o)
        void msg
      },
      warn: (o: object) => handlerErrors.push(o),
    },
  })
  ua.on('call', (call) => call.ringing())
  await ua.start()
})

afterAll(() => ua.stop())

/** Small deterministic PRNG (mulberry32) so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function mutate(src: Buffer, r: () => number): Buffer {
  const b = Buffer.from(src)
  switch (Math.floor(r() * 5)) {
    case 0: // flip a few bytes
      for (let i = 0; i < 1 + r() * 8; i++) b[Math.floor(r() * b.length)] = Math.floor(r() * 256)
      return b
    case 1: // cut anywhere
      return b.subarray(0, Math.floor(r() * b.length))
    case 2: { // repeat a slice many times
      const at = Math.floor(r() * b.length)
      const piece = b.subarray(at, at + 1 + Math.floor(r() * 40))
      return Buffer.concat([b.subarray(0, at), ...Array(1 + Math.floor(r() * 300)).fill(piece), b.subarray(at)])
    }
    case 3: { // shuffle header lines
      const lines = b.toString('latin1').split('\r\n')
      for (let i = lines.length - 1; i > 1; i--) {
        const j = 1 + Math.floor(r() * i)
        ;[lines[i], lines[j]] = [lines[j]!, lines[i]!]
      }
      return Buffer.from(lines.join('\r\n'), 'latin1')
    }
    default: // insert separators and special characters
      return Buffer.concat([b.subarray(0, Math.floor(r() * b.length)), Buffer.from(['\r\n', ';', ',', '"', '<', '%', '\0', ':'][Math.floor(r() * 8)]!), b.subarray(Math.floor(r() * b.length))])
  }
}

test('3,000 mutated torture messages over UDP and TCP: no exception in the handler, still answering', async () => {
  const dir = join(sipTestdataDir(), 'rfc4475')
  const corpus = readdirSync(dir).map((f) => readFileSync(join(dir, f)))
  const r = rng(Number(process.env.SIP_MUTATION_SEED ?? 4475))
  const peer = await SipPeer.udp(ua.ports.udp!)
  let tcp = net.connect({ host: '127.0.0.1', port: ua.ports.tcp! })
  tcp.on('error', () => {})
  for (let i = 0; i < 3000; i++) {
    const m = mutate(corpus[Math.floor(r() * corpus.length)]!, r)
    if (i % 2 === 0 && m.length < 65_000) peer.send(m)
    else {
      if (tcp.destroyed) {
        tcp = net.connect({ host: '127.0.0.1', port: ua.ports.tcp! })
        tcp.on('error', () => {})
      }
      tcp.write(m)
    }
    if (i % 50 === 49) {
      peer.send(`OPTIONS sip:user@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bKm${i}\r\nFrom: <sip:m@127.0.0.1>;tag=m\r\nTo: <sip:user@127.0.0.1>\r\nCall-ID: mut${i}\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`)
      await peer.waitFor((x) => x.kind === 'response' && header(x, 'call-id') === `mut${i}`)
      peer.received.length = 0
    }
  }
  tcp.destroy()
  peer.close()
  expect(handlerErrors).toEqual([])
}, 60_000)
