// Limits on inbound TCP and TLS connections, so that one source cannot lock SIP over streams for
// everyone: a cap per source address (an IPv6 /64 counts as one source) under the total cap, a
// deadline to finish a message once its first byte arrived, and an idle timeout that only whole
// messages (and CRLF keep-alives) reset, so a peer trickling bytes keeps nothing open. The TLS
// handshake deadline is the TLS server's own `handshakeTimeout`; its expiry is reported here.
import net from 'node:net'

/** The part of the SIP log (call.ts `Log`) refusals are written to; declared here so transport.ts needs no call.ts. */
export interface WarnLog {
  warn(obj: object, msg?: string): void
}

export type StreamTransport = 'tcp' | 'tls'
export type RefusalReason = 'source_limit' | 'total_limit' | 'handshake_timeout' | 'message_timeout'

export interface ConnectionLimits {
  /** Inbound TCP and TLS connections open at once, all sources together (default 1024). */
  maxConnections?: number
  /** Inbound connections one source may hold (default 32; 0: only the total cap). */
  maxConnectionsPerSource?: number
  /** A connection without a whole message either way for this long is closed (default 300 s). */
  idleTimeoutMs?: number
  /** A message must be complete (headers and body) this long after its first byte (default 10 s). */
  messageTimeoutMs?: number
  /** A TLS connection must finish its handshake within this time (default 10 s). */
  handshakeTimeoutMs?: number
  /** Every connection refused or closed by a limit; for metrics. */
  onRefused?: (transport: StreamTransport, reason: RefusalReason) => void
}

export const CONNECTION_DEFAULTS = {
  maxConnections: 1024,
  maxConnectionsPerSource: 32,
  idleTimeoutMs: 300_000,
  messageTimeoutMs: 10_000,
  handshakeTimeoutMs: 10_000,
} as const

/** At most one log line per this interval; the refusals in between are counted in the next one. */
const LOG_EVERY_MS = 10_000

/** What the limits count as one source: the IPv4 address, or the /64 of an IPv6 address. */
export function sourceOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
  if (!net.isIPv6(address)) return address
  const [head = '', tail] = address.split('%')[0]!.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  // an IPv4 tail (::1.2.3.4) is two groups; it never reaches the first four
  const rightGroups = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0)
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - rightGroups)).fill('0'), ...right]
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`
}

/** Hooks of one watched connection, called by the transport as its bytes are framed. */
export interface Watch {
  /** After each chunk: whole messages (or keep-alives) cut from it, and bytes of a message still incomplete. */
  framed(complete: number, buffered: number): void
  /** We sent a message on the connection. */
  sent(): void
}

export class ConnectionGuard {
  private readonly admitted = new Set<net.Socket>()
  private readonly perSource = new Map<string, number>()
  private lastLogAt = -Infinity
  private readonly quiet = new Map<string, number>()
  readonly limits: Required<Omit<ConnectionLimits, 'onRefused'>>
  private readonly onRefused?: ConnectionLimits['onRefused']

  constructor(
    limits: ConnectionLimits,
    private readonly log?: WarnLog,
  ) {
    const defined = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined))
    this.limits = { ...CONNECTION_DEFAULTS, ...defined }
    this.onRefused = limits.onRefused
  }

  /** Counts an inbound connection until it closes; or closes it at once and returns false when its source or the transport is full. */
  admit(s: net.Socket, transport: StreamTransport): boolean {
    const address = s.remoteAddress ?? ''
    const source = sourceOf(address)
    const held = this.perSource.get(source) ?? 0
    const perSource = this.limits.maxConnectionsPerSource
    const reason = perSource > 0 && held >= perSource ? 'source_limit' : this.admitted.size >= this.limits.maxConnections ? 'total_limit' : undefined
    if (reason) {
      s.destroy()
      this.refused(transport, reason, address)
      return false
    }
    this.admitted.add(s)
    this.perSource.set(source, held + 1)
    s.once('close', () => {
      this.admitted.delete(s)
      const n = (this.perSource.get(source) ?? 1) - 1
      if (n > 0) this.perSource.set(source, n)
      else this.perSource.delete(source)
    })
    return true
  }

  /** Inbound connections counted now. */
  open(): number {
    return this.admitted.size
  }

  /** Closes every inbound connection, TLS handshakes in progress included (on stop). */
  closeAll(): void {
    for (const s of this.admitted) s.destroy()
  }

  /** Applies the idle timeout and the message deadline to an open (TLS: secured) connection. */
  watch(s: net.Socket, transport: StreamTransport | 'outbound'): Watch {
    const { idleTimeoutMs, messageTimeoutMs } = this.limits
    const idle = setTimeout(() => s.destroy(), idleTimeoutMs)
    idle.unref?.()
    let deadline: ReturnType<typeof setTimeout> | undefined
    const stopDeadline = () => {
      clearTimeout(deadline)
      deadline = undefined
    }
    s.once('close', () => {
      clearTimeout(idle)
      stopDeadline()
    })
    return {
      framed: (complete, buffered) => {
        if (complete > 0) {
          idle.refresh()
          stopDeadline()
        }
        if (buffered === 0) return stopDeadline()
        // a message has started: it is given messageTimeoutMs from its first byte, however it trickles
        deadline ??= setTimeout(() => {
          if (s.destroyed) return
          s.destroy()
          if (transport !== 'outbound') this.refused(transport, 'message_timeout', s.remoteAddress ?? '')
        }, messageTimeoutMs)
        deadline.unref?.()
      },
      sent: () => void idle.refresh(),
    }
  }

  /** Counts and logs (at most once per LOG_EVERY_MS) a connection refused or closed by a limit. */
  refused(transport: StreamTransport, reason: RefusalReason, address: string): void {
    this.onRefused?.(transport, reason)
    const now = performance.now()
    if (now - this.lastLogAt < LOG_EVERY_MS) {
      const k = `${transport} ${reason}`
      this.quiet.set(k, (this.quiet.get(k) ?? 0) + 1)
      return
    }
    const since = Object.fromEntries(this.quiet)
    this.quiet.clear()
    this.lastLogAt = now
    this.log?.warn({ transport, reason, source: address, limits: this.limits, refusedSinceLastLine: since }, 'sip connection refused by a limit')
  }
}
