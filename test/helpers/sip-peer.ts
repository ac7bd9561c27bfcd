// A raw SIP peer for tests: sends bytes over UDP or TCP to the user agent and collects what
// comes back, parsed, so tests can wait for a given response or request.
import dgram from 'node:dgram'
import net from 'node:net'
import { parseMessage, StreamFramer, type SipMessage } from '../../src/realtime/telephony/sip/index.ts'

export class SipPeer {
  readonly received: SipMessage[] = []
  private waiters: Array<{ pred: (m: SipMessage) => boolean; res: (m: SipMessage) => void }> = []
  private udp?: dgram.Socket
  private tcp?: net.Socket
  port = 0

  private constructor(readonly transport: 'udp' | 'tcp', private readonly target: number) {}

  /** `bind` may be any 127.x.y.z address, to look like another source host. */
  static async udp(target: number, bind = '127.0.0.1'): Promise<SipPeer> {
    const p = new SipPeer('udp', target)
    const s = dgram.createSocket('udp4')
    s.on('message', (b) => p.take(new Uint8Array(b)))
    await new Promise<void>((r) => s.bind(0, bind, () => r()))
    p.udp = s
    p.port = s.address().port
    return p
  }

  static async tcp(target: number): Promise<SipPeer> {
    const p = new SipPeer('tcp', target)
    const framer = new StreamFramer()
    const s = net.connect({ host: '127.0.0.1', port: target })
    await new Promise<void>((r, j) => s.once('connect', () => r()).once('error', j))
    s.on('data', (b: Buffer) => {
      for (const ev of framer.push(new Uint8Array(b))) if ('message' in ev) p.take(ev.message)
    })
    s.on('error', () => {})
    p.tcp = s
    p.port = s.localPort!
    return p
  }

  send(data: Uint8Array | string): void {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    if (this.udp) this.udp.send(bytes, this.target, '127.0.0.1')
    else this.tcp!.write(bytes)
  }

  /** The first message (already received or still to come) matching `pred`. */
  waitFor<T extends SipMessage>(pred: (m: SipMessage) => m is T, timeoutMs?: number): Promise<T>
  waitFor(pred: (m: SipMessage) => boolean, timeoutMs?: number): Promise<SipMessage>
  waitFor(pred: (m: SipMessage) => boolean, timeoutMs = 5000): Promise<SipMessage> {
    const seen = this.received.find(pred)
    if (seen) return Promise.resolve(seen)
    return new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error('timed out waiting for a SIP message')), timeoutMs)
      this.waiters.push({ pred, res: (m) => (clearTimeout(t), res(m)) })
    })
  }

  close(): void {
    this.udp?.close()
    this.tcp?.destroy()
  }

  private take(bytes: Uint8Array): void {
    let m: SipMessage
    try {
      m = parseMessage(bytes, this.transport === 'udp').message
    } catch {
      return
    }
    this.received.push(m)
    for (const w of [...this.waiters]) {
      if (w.pred(m)) {
        this.waiters.splice(this.waiters.indexOf(w), 1)
        w.res(m)
      }
    }
  }
}
