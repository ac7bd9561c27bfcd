// UDP, TCP and TLS listeners on one port each; stream connections are reused both ways,
// keyed by the peer's address and port, and held to the limits of connection-guard.ts.
import dgram from 'node:dgram'
import net from 'node:net'
import tls from 'node:tls'
import { ConnectionGuard, type ConnectionLimits, type StreamTransport, type WarnLog, type Watch } from './connection-guard.ts'
import { formatVia, parseVia } from './grammar.ts'
import { canonicalName, headerValues, type SipRequest } from './message.ts'
import { MAX_MESSAGE_BYTES, StreamFramer } from './parse.ts'

export type TransportName = 'udp' | 'tcp' | 'tls'
export type { ConnectionLimits, RefusalReason, StreamTransport } from './connection-guard.ts'

export interface Remote {
  transport: TransportName
  address: string
  port: number
}

export interface Inbound {
  bytes: Uint8Array
  remote: Remote
  /** True for a whole UDP datagram, false for a message cut from a stream. */
  datagram: boolean
}

export interface TransportOptions extends ConnectionLimits {
  host: string
  /** Port for UDP and TCP; 0 picks a free port (the same number for both when it can). */
  port: number
  udp?: boolean
  tcp?: boolean
  /** TLS listener port (0 picks a free port); TLS is off unless cert and key are given. */
  tlsPort?: number
  tlsCert?: string
  tlsKey?: string
  /** The CA certificates trusted when we open TLS connections (the public roots unless given). */
  tlsCa?: string | string[]
  tlsRejectUnauthorized?: boolean
  /** Where refusals by the connection limits are logged (rate-limited). */
  log?: WarnLog
}

export interface BoundPorts {
  udp?: number
  tcp?: number
  tls?: number
}

const key = (transport: TransportName, address: string, port: number) => `${transport}:${address}:${port}`

export class Transports {
  onMessage: (m: Inbound) => void = () => {}
  onError: (err: Error, where: string) => void = () => {}
  private udp?: dgram.Socket
  private tcpServer?: net.Server
  private tlsServer?: tls.Server
  private conns = new Map<string, net.Socket>()
  private pending = new Map<string, Promise<net.Socket>>()
  private watches = new WeakMap<net.Socket, Watch>()
  private readonly guard: ConnectionGuard
  readonly ports: BoundPorts = {}

  constructor(private readonly opts: TransportOptions) {
    this.guard = new ConnectionGuard(opts, opts.log)
  }

  async start(): Promise<BoundPorts> {
    const o = this.opts
    if (o.udp !== false) {
      const sock = dgram.createSocket({ type: net.isIPv6(o.host) ? 'udp6' : 'udp4' })
      sock.on('message', (msg, rinfo) => {
        if (msg.length > MAX_MESSAGE_BYTES) return
        this.deliver({ bytes: new Uint8Array(msg), remote: { transport: 'udp', address: rinfo.address, port: rinfo.port }, datagram: true })
      })
      sock.on('error', (err) => this.onError(err, 'udp'))
      await new Promise<void>((res, rej) => {
        sock.once('error', rej)
        sock.bind(o.port, o.host, () => res())
      })
      this.udp = sock
      this.ports.udp = sock.address().port
      try {
        // bursts of large datagrams (a trunk at peak, a fuzzer) overflow the kernel default
        sock.setRecvBufferSize(4 * 1024 * 1024)
      } catch {
        // capped by net.core.rmem_max; the default still works
      }
    }
    if (o.tcp !== false) {
      this.tcpServer = net.createServer((s) => void (this.guard.admit(s, 'tcp') && this.adopt(s, 'tcp')))
      this.ports.tcp = await listen(this.tcpServer, this.ports.udp ?? o.port, o.host, o.port === 0)
      this.tcpServer.on('error', (err) => this.onError(err, 'tcp listener'))
    }
    if (o.tlsCert && o.tlsKey) {
      const handshakeTimeout = this.guard.limits.handshakeTimeoutMs
      this.tlsServer = tls.createServer({ cert: o.tlsCert, key: o.tlsKey, minVersion: 'TLSv1.2', handshakeTimeout }, (s) => this.adopt(s, 'tls'))
      // connections count from their accept, handshake done or not
      this.tlsServer.on('connection', (s: net.Socket) => this.guard.admit(s, 'tls'))
      this.tlsServer.on('tlsClientError', (err: Error & { code?: string }, s?: net.Socket) => {
        this.onError(err, 'tls handshake')
        if (err.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') this.guard.refused('tls', 'handshake_timeout', s?.remoteAddress ?? '')
        s?.destroy()
      })
      this.ports.tls = await listen(this.tlsServer, o.tlsPort ?? 0, o.host)
      this.tlsServer.on('error', (err) => this.onError(err, 'tls listener'))
    }
    return this.ports
  }

  /** Sends bytes to a peer; opens a TCP or TLS connection when none is open to it. */
  async send(to: Remote, bytes: Uint8Array): Promise<void> {
    if (to.transport === 'udp') {
      const sock = this.udp
      if (!sock) throw new Error('UDP transport is not running')
      await new Promise<void>((res, rej) => sock.send(bytes, to.port, to.address, (err) => (err ? rej(err) : res())))
      return
    }
    const sock = await this.connection(to)
    sock.write(bytes)
    this.watches.get(sock)?.sent()
  }

  /** Resolves once bytes can be sent to `to` (a stream connection is open); rejects when it cannot be opened. */
  async ready(to: Remote): Promise<void> {
    if (to.transport !== 'udp') await this.connection(to)
  }

  /** Stream connections open now: those we opened, and inbound ones (TLS: once secured). */
  connectionCount(): number {
    return this.conns.size
  }

  /** Inbound TCP and TLS connections the limits count now, TLS handshakes in progress included. */
  inboundCount(): number {
    return this.guard.open()
  }

  async stop(): Promise<void> {
    for (const s of this.conns.values()) s.destroy()
    this.conns.clear()
    this.guard.closeAll()
    const close = (srv?: net.Server) => new Promise<void>((res) => (srv ? srv.close(() => res()) : res()))
    await Promise.all([close(this.tcpServer), close(this.tlsServer)])
    if (this.udp) await new Promise<void>((res) => this.udp!.close(() => res()))
    this.udp = undefined
  }

  private deliver(m: Inbound): void {
    try {
      this.onMessage(m)
    } catch (err) {
      this.onError(err as Error, 'message handler')
    }
  }

  private async connection(to: Remote): Promise<net.Socket> {
    const k = key(to.transport, to.address, to.port)
    // while a connection is being opened every sender waits for it, so bytes keep their order
    const waiting = this.pending.get(k)
    if (waiting) return waiting
    const open = this.conns.get(k)
    if (open && !open.destroyed) return open
    const p = new Promise<net.Socket>((res, rej) => {
      const s =
        to.transport === 'tls'
          ? tls.connect({
              host: to.address, port: to.port, minVersion: 'TLSv1.2', ca: this.opts.tlsCa,
              rejectUnauthorized: this.opts.tlsRejectUnauthorized ?? true,
              servername: net.isIP(to.address) ? undefined : to.address,
            }, () => res(s))
          : net.connect({ host: to.address, port: to.port }, () => res(s))
      s.once('error', rej)
      this.adopt(s, to.transport === 'tls' ? 'tls' : 'tcp', to)
    }).finally(() => this.pending.delete(k))
    this.pending.set(k, p)
    return p
  }

  private adopt(s: net.Socket, transport: StreamTransport, to?: Remote): void {
    const remote: Remote = to ?? { transport, address: s.remoteAddress ?? '', port: s.remotePort ?? 0 }
    const k = key(transport, remote.address, remote.port)
    this.conns.set(k, s)
    const framer = new StreamFramer()
    const watch = this.guard.watch(s, to ? 'outbound' : transport)
    this.watches.set(s, watch)
    s.on('data', (chunk: Buffer) => {
      const events = framer.push(new Uint8Array(chunk))
      watch.framed(events.filter((ev) => !('error' in ev)).length, framer.buffered)
      for (const ev of events) {
        if ('message' in ev) this.deliver({ bytes: ev.message, remote, datagram: false })
        else if ('keepalive' in ev) s.write('\r\n')
        else {
          this.onError(new Error(ev.error), `${transport} framing from ${remote.address}:${remote.port}`)
          if (ev.head) {
            // the headers alone are a message the parser refuses with 400 (bad Content-Length);
            // close once that answer, written from the microtasks of this delivery, is flushed
            this.deliver({ bytes: ev.head, remote, datagram: true })
            setImmediate(() => s.end())
          } else s.destroy()
        }
      }
    })
    s.on('error', (err) => this.onError(err, `${transport} connection`))
    s.on('close', () => {
      if (this.conns.get(k) === s) this.conns.delete(k)
    })
  }
}

function listen(server: net.Server, port: number, host: string, anyOnClash = false): Promise<number> {
  return new Promise((res, rej) => {
    const onError = (err: Error) => {
      // a free UDP port picked by the system may be taken for TCP; then any free port will do
      if (anyOnClash && port !== 0) listen(server, 0, host).then(res, rej)
      else rej(err)
    }
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      res((server.address() as net.AddressInfo).port)
    })
  })
}

/** RFC 3581 and 3261 18.2.1: note where a request really came from in its top Via. */
export function stampVia(req: SipRequest, remote: Remote): void {
  const i = req.headers.findIndex((h) => canonicalName(h.name) === 'via')
  const h = req.headers[i]!
  const [first, ...rest] = headerValues({ ...req, headers: [h] }, 'via')
  const via = parseVia(first!)!
  const hasRport = via.params.has('rport')
  if (via.host === remote.address && !hasRport) return
  if (via.host !== remote.address) via.params.set('received', remote.address)
  if (hasRport) via.params.set('rport', String(remote.port))
  req.headers[i] = { name: h.name, value: [formatVia(via), ...rest].join(', ') }
}
