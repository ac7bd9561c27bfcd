// A UDP relay between a peer and the appliance that impairs the forward path with seeded
// loss, random delay (which also reorders) and duplicates. The reverse path is passed as is.

export interface Impairment {
  seed: number
  lossRate: number
  /** Each packet is delayed uniformly by 0..jitterMs. */
  jitterMs: number
  duplicateRate: number
}

export class ImpairmentRelay {
  forwarded = 0
  dropped = 0
  duplicated = 0
  private seed: number
  private timers = new Set<ReturnType<typeof setTimeout>>()

  private constructor(
    readonly socket: Bun.udp.Socket<'uint8array'>,
    private readonly imp: Impairment,
  ) {
    this.seed = imp.seed
  }

  /** Relays datagrams arriving from `from` to `to`, and anything from `to` back to `from`. */
  static async open(target: { port: number }, imp: Impairment): Promise<ImpairmentRelay> {
    let relay!: ImpairmentRelay
    let source: { port: number } | undefined
    const socket = await Bun.udpSocket({
      hostname: '127.0.0.1',
      port: 0,
      binaryType: 'uint8array',
      socket: {
        error() {},
        data(_s, data, port) {
          if (port === target.port) {
            if (source) relay.socket.send(data, source.port, '127.0.0.1')
            return
          }
          source = { port }
          relay.forward(data.slice(), target.port)
        },
      },
    })
    relay = new ImpairmentRelay(socket, imp)
    return relay
  }

  get port(): number {
    return this.socket.port
  }

  private rand(): number {
    this.seed = (this.seed * 1103515245 + 12345) & 0x7fffffff
    return this.seed / 0x7fffffff
  }

  private forward(data: Uint8Array, port: number): void {
    if (this.rand() < this.imp.lossRate) {
      this.dropped++
      return
    }
    const copies = this.rand() < this.imp.duplicateRate ? 2 : 1
    if (copies === 2) this.duplicated++
    for (let i = 0; i < copies; i++) {
      const timer = setTimeout(() => {
        this.timers.delete(timer)
        this.forwarded++
        this.socket.send(data, port, '127.0.0.1')
      }, this.rand() * this.imp.jitterMs)
      this.timers.add(timer)
    }
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t)
    this.socket.close()
  }
}
