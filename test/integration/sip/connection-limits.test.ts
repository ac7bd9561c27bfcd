// Inbound SIP over TCP and TLS under a hostile source (issue 24, finding 2): one address holding
// many half-sent messages, trickling bytes, or never finishing a TLS handshake must not lock
// SIP over streams for everyone else. The exhausting connections come from 127.0.0.2, the
// legitimate client is 127.0.0.1.
import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tls from 'node:tls'
import { loadConfig } from '../../../src/platform/config/index.ts'
import { Transports, type TransportOptions } from '../../../src/realtime/telephony/sip/transport.ts'
import { userAgentFromConfig, type RefusalReason, type UserAgent } from '../../../src/realtime/telephony/sip/index.ts'
import { InMemoryNumberDirectory } from '../../helpers/number-directory.ts'
import { until } from '../../helpers/until.ts'

let dir: string
let cert: string
let key: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sip-conn-'))
  const gen = Bun.spawnSync([
    'openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ])
  if (gen.exitCode !== 0) throw new Error(gen.stderr.toString())
  cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
  key = readFileSync(join(dir, 'key.pem'), 'utf8')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const sockets: net.Socket[] = []
let ua: UserAgent | undefined
const transports: Transports[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  await ua?.stop()
  ua = undefined
  for (const t of transports.splice(0)) await t.stop()
})

const options = (transport: string, callId: string, padding = '') =>
  `OPTIONS sip:probe@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/${transport} 127.0.0.1:5999;branch=z9hG4bK${callId}\r\n` +
  `From: <sip:probe@127.0.0.1>;tag=p\r\nTo: <sip:probe@127.0.0.1>\r\nCall-ID: ${callId}\r\nCSeq: 1 OPTIONS\r\n` +
  `${padding ? `Subject: ${padding}\r\n` : ''}Content-Length: 0\r\n\r\n`

type Refusal = [transport: string, reason: RefusalReason]

/** Opens a raw TCP connection from `from`; resolves once connected, or once refused (closed). */
function rawConnect(port: number, from: string): Promise<net.Socket> {
  const s = net.connect({ host: '127.0.0.1', port, localAddress: from })
  sockets.push(s)
  s.on('error', () => {})
  return new Promise((res) => {
    s.once('connect', () => res(s))
    s.once('close', () => res(s))
  })
}

/** Sends one request and resolves with what came back before the first blank line, or '' when the connection was closed or reset. */
function ask(s: net.Socket, request: string): Promise<string> {
  sockets.push(s)
  return new Promise((res) => {
    let got = ''
    s.on('data', (d: Buffer) => {
      got += d.toString('latin1')
      if (got.includes('\r\n\r\n')) res(got)
    })
    s.on('error', () => res(got))
    s.on('close', () => res(got))
    s.write(request)
  })
}

async function askTcp(port: number, request: string): Promise<string> {
  const s = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.1' })
  await new Promise<void>((res) => s.once('connect', () => res()).once('error', () => res()))
  return ask(s, request)
}

async function askTls(port: number, request: string): Promise<string> {
  const s = tls.connect({ host: '127.0.0.1', port, ca: cert }) // from 127.0.0.1, the loopback default
  await new Promise<void>((res) => s.once('secureConnect', () => res()).once('error', () => res()).once('close', () => res()))
  return ask(s, request)
}

async function startTransports(limits: Partial<TransportOptions>, refusals: Refusal[]): Promise<Transports> {
  const t = new Transports({ host: '127.0.0.1', port: 0, tlsPort: 0, tlsCert: cert, tlsKey: key, ...limits, onRefused: (tr, r) => refusals.push([tr, r]) })
  await t.start()
  transports.push(t)
  return t
}

test('1,030 half-sent OPTIONS connections from one source leave TCP and TLS OPTIONS of another source answered', async () => {
  const refusals: Refusal[] = []
  const warnings: string[] = []
  const log = { debug() {}, warn: (_o: object, msg?: string) => void warnings.push(msg ?? '') }
  const config = loadConfig({}, {
    SIP_HOST: '127.0.0.1', SIP_PORT: 0, PUBLIC_HOST: '127.0.0.1', SIP_TLS_PORT: 0,
    SIP_TLS_CERT_FILE: join(dir, 'cert.pem'), SIP_TLS_KEY_FILE: join(dir, 'key.pem'),
  })
  ua = userAgentFromConfig(config, new InMemoryNumberDirectory([]), log, undefined, (tr, r) => refusals.push([tr, r]))
  const ports = await ua.start()
  // the probe: each connection holds half an OPTIONS, so none ever completes a message
  const half = options('TCP', 'held').slice(0, 60)
  const attack = await Promise.all(Array.from({ length: 1030 }, () => rawConnect(ports.tcp!, '127.0.0.2')))
  for (const s of attack) if (!s.destroyed) s.write(half)

  expect(await askTcp(ports.tcp!, options('TCP', 'legit-tcp'))).toStartWith('SIP/2.0 200 OK')
  expect(await askTls(ports.tls!, options('TLS', 'legit-tls'))).toStartWith('SIP/2.0 200 OK')
  // the default cap per source (SIP_MAX_CONNECTIONS_PER_SOURCE) held; the rest were refused and counted
  await until(() => refusals.length === 1030 - config.SIP_MAX_CONNECTIONS_PER_SOURCE, 10_000, 'refusals counted')
  expect(new Set(refusals.map(([tr, r]) => `${tr} ${r}`))).toEqual(new Set(['tcp source_limit']))
  await until(() => attack.filter((s) => !s.destroyed).length === config.SIP_MAX_CONNECTIONS_PER_SOURCE, 10_000, 'refused sockets closed')
  // refusals are logged at most once per 10 s, not once per connection
  const lines = warnings.filter((w) => w === 'sip connection refused by a limit').length
  expect(lines).toBeGreaterThanOrEqual(1)
  expect(lines).toBeLessThanOrEqual(3)
}, 60_000)

/** Sends `message` a byte every 20 ms from 127.0.0.2 until the appliance closes the connection; returns the bytes sent. */
async function trickleUntilClosed(port: number, message: string): Promise<number> {
  const s = await rawConnect(port, '127.0.0.2')
  let sent = 0
  const drip = setInterval(() => s.destroyed || s.write(message[sent++]!), 20)
  try {
    await until(() => s.destroyed, 10_000, 'the trickling connection closed')
  } finally {
    clearInterval(drip)
  }
  return sent
}

test('a connection trickling a message one byte at a time is closed at the message deadline and counted', async () => {
  const refusals: Refusal[] = []
  const t = await startTransports({ messageTimeoutMs: 300, idleTimeoutMs: 600_000 }, refusals)
  let delivered = 0
  t.onMessage = () => void delivered++
  const message = options('TCP', 'trickle', 'x'.repeat(400))
  const sent = await trickleUntilClosed(t.ports.tcp!, message)
  expect(sent).toBeLessThan(message.length)
  expect(delivered).toBe(0)
  expect(refusals).toEqual([['tcp', 'message_timeout']])
  await until(() => t.inboundCount() === 0, 5000, 'the connection uncounted')
}, 30_000)

test('trickled bytes do not hold a connection open past the idle timeout', async () => {
  const refusals: Refusal[] = []
  const t = await startTransports({ idleTimeoutMs: 300, messageTimeoutMs: 600_000 }, refusals)
  const message = options('TCP', 'idle-trickle', 'x'.repeat(400))
  const sent = await trickleUntilClosed(t.ports.tcp!, message)
  expect(sent).toBeLessThan(message.length)
}, 30_000)

test('whole messages keep a connection open past the idle timeout', async () => {
  const t = await startTransports({ idleTimeoutMs: 1500 }, [])
  let delivered = 0
  t.onMessage = () => void delivered++
  const s = await rawConnect(t.ports.tcp!, '127.0.0.1')
  // one whole message after another, each once the previous arrived, for twice the idle timeout
  const start = performance.now()
  while (performance.now() - start < 3000) {
    s.write(options('TCP', `keep${delivered}`))
    const n = delivered + 1
    await until(() => delivered === n, 10_000, `message ${n}`)
  }
  expect(s.destroyed).toBe(false)
}, 30_000)

test('a TLS connection that never starts its handshake is closed at the handshake timeout and counted', async () => {
  const refusals: Refusal[] = []
  const t = await startTransports({ handshakeTimeoutMs: 300 }, refusals)
  const s = await rawConnect(t.ports.tls!, '127.0.0.2')
  await until(() => s.destroyed, 10_000, 'the silent TLS connection closed')
  expect(refusals).toEqual([['tls', 'handshake_timeout']])
  await until(() => t.inboundCount() === 0, 5000, 'the connection uncounted')
}, 30_000)

test('raw TLS connections over the per-source cap are refused while another source completes its handshake', async () => {
  const refusals: Refusal[] = []
  const t = await startTransports({ maxConnectionsPerSource: 3, handshakeTimeoutMs: 600_000 }, refusals)
  t.onMessage = (m) => void t.send(m.remote, new TextEncoder().encode('SIP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n'))
  const raw = await Promise.all(Array.from({ length: 6 }, () => rawConnect(t.ports.tls!, '127.0.0.2')))
  await until(() => raw.filter((s) => s.destroyed).length === 3, 10_000, 'three refused')
  expect(refusals).toEqual([['tls', 'source_limit'], ['tls', 'source_limit'], ['tls', 'source_limit']])
  expect(t.inboundCount()).toBe(3)
  expect(await askTls(t.ports.tls!, options('TLS', 'legit'))).toStartWith('SIP/2.0 200 OK')
}, 30_000)

test('the total cap still holds across sources', async () => {
  const refusals: Refusal[] = []
  const t = await startTransports({ maxConnections: 4, maxConnectionsPerSource: 3 }, refusals)
  const a = await Promise.all(Array.from({ length: 3 }, () => rawConnect(t.ports.tcp!, '127.0.0.2')))
  const b = await Promise.all(Array.from({ length: 3 }, () => rawConnect(t.ports.tcp!, '127.0.0.3')))
  await until(() => refusals.length === 2, 10_000, 'two refused')
  expect(refusals).toEqual([['tcp', 'total_limit'], ['tcp', 'total_limit']])
  await until(() => [...a, ...b].filter((s) => s.destroyed).length === 2, 10_000, 'the refused sockets closed')
  expect(t.inboundCount()).toBe(4)
}, 30_000)
