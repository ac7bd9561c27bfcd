// A phone's SIP side, as little as a call needs over UDP on 127.0.0.1: INVITE (retransmitted
// until answered), ACK, BYE either way. Its own few lines of parsing, so the far end shares no
// code with the appliance's SIP stack.

interface Message {
  startLine: string
  status: number | undefined
  method: string | undefined
  /** Lower-case full names; compact forms expanded. */
  headers: Map<string, string[]>
  body: string
}

const COMPACT: Record<string, string> = { v: 'via', f: 'from', t: 'to', i: 'call-id', m: 'contact', l: 'content-length', c: 'content-type' }

function parse(text: string): Message | undefined {
  const split = text.indexOf('\r\n\r\n')
  if (split < 0) return undefined
  const [startLine = '', ...lines] = text.slice(0, split).split('\r\n')
  const headers = new Map<string, string[]>()
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const raw = line.slice(0, colon).trim().toLowerCase()
    const name = COMPACT[raw] ?? raw
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()])
  }
  const status = /^SIP\/2\.0 (\d{3})/.exec(startLine)?.[1]
  return { startLine, status: status ? Number(status) : undefined, method: status ? undefined : startLine.split(' ')[0], headers, body: text.slice(split + 4) }
}

const one = (m: Message, name: string) => m.headers.get(name)?.[0] ?? ''
const token = () => Math.random().toString(36).slice(2, 12)

export class SipUac {
  private socket!: Bun.udp.Socket<'uint8array'>
  private readonly callId = `${token()}@bench`
  private readonly tag = token()
  private toTag = ''
  private remoteTarget: string
  private waiting: ((m: Message) => void) | undefined
  private readonly inbox: Message[] = []
  private answered = false
  /** The agent's side hung up. */
  onBye: () => void = () => {}

  private constructor(
    private readonly port: number,
    private readonly user: string,
    private readonly from: string,
  ) {
    this.remoteTarget = `sip:${user}@127.0.0.1:${port}`
  }

  static async open(port: number, user: string, from: string): Promise<SipUac> {
    const uac = new SipUac(port, user, from)
    const dec = new TextDecoder()
    uac.socket = await Bun.udpSocket({
      hostname: '127.0.0.1',
      port: 0,
      binaryType: 'uint8array',
      socket: { error() {}, data: (_s, data) => uac.take(dec.decode(data)) },
    })
    return uac
  }

  /** Calls; resolves with the answer's SDP once 200 OK came (and was acknowledged). */
  async invite(sdp: string, timeoutMs = 15_000): Promise<string> {
    const branch = `z9hG4bK${token()}`
    const request = this.request('INVITE', 1, branch, sdp)
    const deadline = performance.now() + timeoutMs
    let resendMs = 500
    let next = performance.now() + resendMs
    let final: Message | undefined
    this.socket.send(request, this.port, '127.0.0.1')
    while (!final) {
      const m = await this.next(Math.max(1, Math.min(next, deadline) - performance.now()))
      if (m?.status && m.status >= 200 && one(m, 'cseq').endsWith('INVITE')) final = m
      else if (m?.status) resendMs = Number.POSITIVE_INFINITY // provisional: the server has it
      if (final) break
      if (performance.now() >= deadline) throw new Error('no final response to the INVITE')
      if (performance.now() >= next) {
        this.socket.send(request, this.port, '127.0.0.1')
        resendMs *= 2
        next = performance.now() + resendMs
      }
    }
    if (final.status !== 200) throw new Error(`INVITE answered ${final.startLine}`)
    this.toTag = /;tag=([^;>\s]+)/.exec(one(final, 'to'))?.[1] ?? ''
    const contact = /<([^>]+)>/.exec(one(final, 'contact'))?.[1]
    if (contact) this.remoteTarget = contact
    this.answered = true
    this.ack()
    return final.body
  }

  /** Hangs up; resolves when the BYE is answered (or after a few tries). */
  async bye(): Promise<void> {
    const request = this.request('BYE', 2, `z9hG4bK${token()}`)
    for (let i = 0; i < 4; i++) {
      this.socket.send(request, this.port, '127.0.0.1')
      const m = await this.next(500 * 2 ** i, (m) => one(m, 'cseq').endsWith('BYE') && m.status !== undefined)
      if (m) return
    }
  }

  close(): void {
    this.socket.close()
  }

  private ack(): void {
    this.socket.send(this.request('ACK', 1, `z9hG4bK${token()}`, '', this.remoteTarget), this.port, '127.0.0.1')
  }

  private request(method: string, cseq: number, branch: string, body = '', uri = `sip:${this.user}@127.0.0.1:${this.port}`): string {
    const local = this.socket.port
    return [
      `${method} ${uri} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${local};branch=${branch};rport`,
      'Max-Forwards: 70',
      `From: <sip:${this.from}@127.0.0.1>;tag=${this.tag}`,
      `To: <sip:${this.user}@127.0.0.1>${this.toTag ? `;tag=${this.toTag}` : ''}`,
      `Call-ID: ${this.callId}`,
      `CSeq: ${cseq} ${method}`,
      `Contact: <sip:${this.from}@127.0.0.1:${local}>`,
      ...(body ? ['Content-Type: application/sdp'] : []),
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n')
  }

  private take(text: string): void {
    const m = parse(text)
    if (!m) return
    if (m.method === 'BYE') {
      const copied = ['via', 'from', 'to', 'call-id', 'cseq'].flatMap((h) => (m.headers.get(h) ?? []).map((v) => `${h === 'call-id' ? 'Call-ID' : h === 'cseq' ? 'CSeq' : h[0]!.toUpperCase() + h.slice(1)}: ${v}`))
      this.socket.send(['SIP/2.0 200 OK', ...copied, 'Content-Length: 0', '', ''].join('\r\n'), this.port, '127.0.0.1')
      this.onBye()
      return
    }
    if (m.method) return // OPTIONS, INFO...: not needed by a bench call
    // a retransmitted 200 OK means our ACK was lost
    if (this.answered && m.status === 200 && one(m, 'cseq').endsWith('INVITE')) return this.ack()
    const w = this.waiting
    this.waiting = undefined
    if (w) w(m)
    else this.inbox.push(m)
  }

  private next(timeoutMs: number, pred: (m: Message) => boolean = () => true): Promise<Message | undefined> {
    while (this.inbox.length) {
      const m = this.inbox.shift()!
      if (pred(m)) return Promise.resolve(m)
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined
        resolve(undefined)
      }, timeoutMs)
      const wait = (m: Message) => {
        if (!pred(m)) return void (this.waiting = wait)
        clearTimeout(timer)
        resolve(m)
      }
      this.waiting = wait
    })
  }
}
