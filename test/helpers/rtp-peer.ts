// A minimal RTP endpoint for tests: a real UDP socket on 127.0.0.1 that records what it
// receives and sends packets on its own drift-free schedule.
import { parseRtp, serializeRtp, type RtpPacket } from '../../src/realtime/media/rtp/index.ts'

export interface Received {
  atMs: number
  packet: RtpPacket
  fromPort: number
  bytes: Uint8Array
}

export class RtpPeer {
  readonly received: Received[] = []
  private waiters: { until: () => boolean; resolve: () => void }[] = []

  private constructor(readonly socket: Bun.udp.Socket<'uint8array'>) {}

  static async open(hostname = '127.0.0.1'): Promise<RtpPeer> {
    let peer!: RtpPeer
    const socket = await Bun.udpSocket({
      hostname,
      port: 0,
      binaryType: 'uint8array',
      socket: {
        error() {},
        data(_s, data, port) {
          const bytes = data.slice()
          if (bytes[1]! >= 192 && bytes[1]! <= 223) return // RTCP
          peer.received.push({ atMs: performance.now(), packet: parseRtp(bytes), fromPort: port, bytes })
          peer.check()
        },
      },
    })
    peer = new RtpPeer(socket)
    return peer
  }

  get port(): number {
    return this.socket.port
  }

  /** Resolves once `until()` holds, re-checked on every received packet. */
  waitFor(until: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (until()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`condition not met after ${timeoutMs} ms (${this.received.length} packets)`)), timeoutMs)
      this.waiters.push({ until, resolve: () => (clearTimeout(timer), resolve()) })
    })
  }

  private check(): void {
    this.waiters = this.waiters.filter((w) => (w.until() ? (w.resolve(), false) : true))
  }

  send(bytes: Uint8Array, port: number, address = '127.0.0.1'): void {
    this.socket.send(bytes, port, address)
  }

  /** Sends packets every `intervalMs` against the monotonic clock; resolves after the last. */
  sendPaced(packets: (RtpPacket | Uint8Array)[], intervalMs: number, port: number, address = '127.0.0.1'): Promise<void> {
    const start = performance.now()
    let i = 0
    return new Promise((resolve) => {
      const step = () => {
        while (i < packets.length && performance.now() >= start + i * intervalMs) {
          const p = packets[i++]!
          this.send(p instanceof Uint8Array ? p : serializeRtp(p), port, address)
        }
        if (i >= packets.length) resolve()
        else setTimeout(step, Math.max(0, start + i * intervalMs - performance.now()))
      }
      step()
    })
  }

  close(): void {
    this.socket.close()
  }
}
