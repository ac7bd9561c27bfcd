// Stream connections: reused for every message to the same peer, closed when idle.
import { afterEach, expect, test } from 'bun:test'
import net from 'node:net'
import { Transports } from '../../../src/realtime/telephony/sip/transport.ts'
import { utf8 } from '../../../src/realtime/telephony/sip/index.ts'

const open: Transports[] = []
afterEach(async () => {
  for (const t of open.splice(0)) await t.stop()
})

async function transports(idleTimeoutMs = 300_000) {
  const t = new Transports({ host: '127.0.0.1', port: 0, idleTimeoutMs })
  await t.start()
  open.push(t)
  return t
}

const options = (n: number) =>
  utf8(`OPTIONS sip:a@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1;branch=z9hG4bK${n}\r\nCall-ID: ${n}\r\nContent-Length: 0\r\n\r\n`)

test('messages to the same peer over TCP share one connection, both ways', async () => {
  const a = await transports()
  const b = await transports()
  const got: string[] = []
  const three = new Promise<void>((res) => {
    b.onMessage = (m) => {
      got.push(`${m.remote.transport} ${new TextDecoder().decode(m.bytes).split('\r\n')[2]}`)
      // answer to where the message came from: the connection a opened
      void b.send(m.remote, options(10 + got.length))
      if (got.length === 3) res()
    }
  })
  const back: string[] = []
  const answers = new Promise<void>((res) => {
    a.onMessage = (m) => {
      back.push(new TextDecoder().decode(m.bytes).split('\r\n')[2]!)
      if (back.length === 3) res()
    }
  })
  const to = { transport: 'tcp' as const, address: '127.0.0.1', port: b.ports.tcp! }
  await Promise.all([a.send(to, options(1)), a.send(to, options(2)), a.send(to, options(3))])
  await three
  expect(got).toEqual(['tcp Call-ID: 1', 'tcp Call-ID: 2', 'tcp Call-ID: 3'])
  await answers
  expect(back).toEqual(['Call-ID: 11', 'Call-ID: 12', 'Call-ID: 13'])
  expect(a.connectionCount()).toBe(1)
  expect(b.connectionCount()).toBe(1)
})

test('an idle TCP connection is closed after the idle timeout', async () => {
  const t = await transports(150)
  const s = net.connect({ host: '127.0.0.1', port: t.ports.tcp! })
  await new Promise<void>((res) => s.once('connect', () => res()))
  const closed = new Promise<void>((res) => s.once('close', () => res()))
  s.on('error', () => {})
  await closed
  expect(t.connectionCount()).toBe(0)
})

test('a CRLF CRLF keep-alive ping on a stream is answered with CRLF', async () => {
  const t = await transports()
  const s = net.connect({ host: '127.0.0.1', port: t.ports.tcp! })
  await new Promise<void>((res) => s.once('connect', () => res()))
  const pong = new Promise<string>((res) => s.once('data', (d) => res(d.toString())))
  s.write('\r\n\r\n')
  expect(await pong).toBe('\r\n')
  s.destroy()
})
