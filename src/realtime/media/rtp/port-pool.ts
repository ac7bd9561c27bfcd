// RTP port pool: even RTP ports with RTCP on the next odd port (RFC 3550 section 11), handed
// out round-robin so a just-freed port is not reused at once (late packets of the old call).

export type UdpSocket = Bun.udp.Socket<'uint8array'>
export type DatagramHandler = (data: Uint8Array, port: number, address: string) => void

export class PortPoolExhaustedError extends Error {}

/** The socket's descriptor (Bun has it at runtime, not in its types), for sending from another thread. */
export function descriptorOf(socket: UdpSocket): number | undefined {
  const fd = (socket as unknown as { fd?: unknown }).fd
  return !socket.closed && typeof fd === 'number' && fd >= 0 ? fd : undefined
}

export interface BoundPorts {
  port: number
  rtp: UdpSocket
  /** The odd port, bound even with rtcp-mux so a later re-INVITE without mux can use it. */
  rtcp: UdpSocket
  /** Replaces the receive handlers (RTP, RTCP). */
  setHandlers(rtp: DatagramHandler, rtcp: DatagramHandler): void
  release(): void
}

async function bindUdp(hostname: string, port: number, route: { fn: DatagramHandler }, after: () => void): Promise<UdpSocket> {
  return Bun.udpSocket({
    hostname,
    port,
    binaryType: 'uint8array',
    socket: {
      data(_s, data, remotePort, address) {
        route.fn(data, remotePort, address)
        after()
      },
      // ICMP "port unreachable" from a peer that went away arrives as ECONNREFUSED; RTP over
      // UDP carries on (the peer may come back, or the call is hanging up).
      error() {},
    },
  })
}

const ignore: DatagramHandler = () => {}

export class RtpPortPool {
  private readonly first: number
  private readonly pairs: number
  private next = 0
  private readonly inUse = new Set<number>()

  constructor(
    min: number,
    max: number,
    readonly hostname = '0.0.0.0',
    /** Runs after each datagram's handler: the media clock sends what fell due during a burst of them. */
    private readonly afterDatagram: () => void = () => {},
  ) {
    this.first = min % 2 === 0 ? min : min + 1
    this.pairs = Math.floor((max - this.first + 1) / 2)
    if (this.pairs < 1) throw new RangeError(`RTP port range ${min}-${max} holds no even/odd port pair`)
  }

  get capacity(): number {
    return this.pairs
  }
  get used(): number {
    return this.inUse.size
  }

  /** Binds the next free pair; ports taken by other programs are skipped. */
  async bind(): Promise<BoundPorts> {
    for (let tries = 0; tries < this.pairs; tries++) {
      const port = this.first + 2 * ((this.next + tries) % this.pairs)
      if (this.inUse.has(port)) continue
      const rtpRoute = { fn: ignore }
      const rtcpRoute = { fn: ignore }
      let rtp: UdpSocket | undefined
      let rtcp: UdpSocket | undefined
      try {
        rtp = await bindUdp(this.hostname, port, rtpRoute, this.afterDatagram)
        rtcp = await bindUdp(this.hostname, port + 1, rtcpRoute, this.afterDatagram)
      } catch {
        rtp?.close()
        continue
      }
      this.inUse.add(port)
      this.next = (this.next + tries + 1) % this.pairs
      const boundRtcp = rtcp
      let released = false
      return {
        port,
        rtp,
        rtcp: boundRtcp,
        setHandlers(onRtp, onRtcp) {
          rtpRoute.fn = onRtp
          rtcpRoute.fn = onRtcp
        },
        release: () => {
          if (released) return
          released = true
          rtp.close()
          boundRtcp.close()
          this.inUse.delete(port)
        },
      }
    }
    throw new PortPoolExhaustedError(`no free RTP port pair between ${this.first} and ${this.first + 2 * this.pairs - 1}`)
  }
}
