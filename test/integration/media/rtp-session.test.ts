import { afterEach, describe, expect, test } from 'bun:test'
import { PortPoolExhaustedError, RtpPortPool, RtpSession, serializeRtp, type BoundPorts } from '../../../src/realtime/media/rtp/index.ts'
import { RtpPeer } from '../../helpers/rtp-peer.ts'

const BASE = 42000 + 2 * Math.floor(Math.random() * 1000)
const cleanup: (() => void)[] = []
afterEach(() => cleanup.splice(0).forEach((f) => f()))

const pkt = (seq: number, ssrc = 0x1234) =>
  serializeRtp({ marker: false, payloadType: 0, sequenceNumber: seq, timestamp: seq * 160, ssrc, csrcs: [], payload: new Uint8Array(160).fill(0xff) })

describe('RTP port pool', () => {
  test('hands out even RTP ports with RTCP on the next port, skips ports in use elsewhere, and reports exhaustion', async () => {
    const squatter = await Bun.udpSocket({ hostname: '127.0.0.1', port: BASE + 2 })
    cleanup.push(() => squatter.close())
    const pool = new RtpPortPool(BASE - 1, BASE + 5, '127.0.0.1') // pairs at BASE, BASE+2 (taken), BASE+4
    expect(pool.capacity).toBe(3)
    const a = await pool.bind()
    const b = await pool.bind()
    expect([a.port, b.port]).toEqual([BASE, BASE + 4])
    expect(a.rtcp.port).toBe(BASE + 1)
    await expect(pool.bind()).rejects.toBeInstanceOf(PortPoolExhaustedError)
    a.release()
    const c = await pool.bind()
    expect(c.port).toBe(BASE)
    b.release()
    c.release()
    expect(pool.used).toBe(0)
  })

  test('rejects a range without an even/odd pair', () => {
    expect(() => new RtpPortPool(5001, 5001)).toThrow(RangeError)
  })
})

describe('RTP session over UDP', () => {
  async function session(remotePort: number, extra: Partial<ConstructorParameters<typeof RtpSession>[0]> = {}) {
    const pool = new RtpPortPool(BASE + 10, BASE + 60, '127.0.0.1')
    const ports: BoundPorts = await pool.bind()
    const received: number[] = []
    const waiters: { seq: number; resolve: () => void }[] = []
    const s = new RtpSession({
      ports,
      remote: { address: '127.0.0.1', rtpPort: remotePort, rtcpPort: remotePort + 1, rtcpMux: true },
      clockRate: 8000,
      onPacket: (p) => {
        received.push(p.sequenceNumber)
        for (const w of waiters) if (w.seq === p.sequenceNumber) w.resolve()
      },
      ...extra,
    })
    /** Loopback delivers in send order, so once `seq` is seen every earlier datagram was handled. */
    const seen = (seq: number) => new Promise<void>((resolve) => waiters.push({ seq, resolve }))
    cleanup.push(() => {
      s.close()
      ports.release()
    })
    return { s, ports, received, seen }
  }

  test('strict latching: the first trusted source wins, packets from other ports or addresses are dropped', async () => {
    const first = await RtpPeer.open()
    const other = await RtpPeer.open()
    const stranger = await RtpPeer.open('127.0.0.2')
    cleanup.push(() => [first, other, stranger].forEach((p) => p.close()))
    const { s, ports, received, seen } = await session(first.port + 100) // SDP port differs from the real source port
    const done = seen(4)
    stranger.send(pkt(1), ports.port) // not the SDP address: ignored, no latch
    first.send(pkt(2), ports.port)
    other.send(pkt(3), ports.port)
    first.send(pkt(4), ports.port)
    await done
    expect(received).toEqual([2, 4])
    // Symmetric RTP: our packets go to where the latched source sends from, not to the SDP port.
    s.send(0, new Uint8Array(160), 0, true)
    await first.waitFor(() => first.received.length === 1)
    expect(s.stats()).toMatchObject({ rejectedPackets: 2, packetsReceived: 2, latchedTo: `127.0.0.1:${first.port}` })
  })

  test('malformed datagrams are counted, never thrown', async () => {
    const peer = await RtpPeer.open()
    cleanup.push(() => peer.close())
    const { s, ports, received, seen } = await session(peer.port)
    const done = seen(9)
    peer.send(Uint8Array.of(1, 2, 3), ports.port)
    peer.send(Uint8Array.of(0x80, 0x00, 0x00), ports.port)
    peer.send(pkt(9), ports.port)
    await done
    expect(received).toEqual([9])
    expect(s.stats().malformedPackets).toBe(2)
  })

  test('two sessions exchange SR/RR: loss, jitter and round-trip time are filled in on both sides', async () => {
    const poolA = new RtpPortPool(BASE + 100, BASE + 101, '127.0.0.1')
    const poolB = new RtpPortPool(BASE + 102, BASE + 103, '127.0.0.1')
    const pa = await poolA.bind()
    const pb = await poolB.bind()
    let reportsAtA = 0
    let resolveDone!: () => void
    const done = new Promise<void>((r) => (resolveDone = r))
    const a = new RtpSession({
      ports: pa,
      remote: { address: '127.0.0.1', rtpPort: pb.port, rtcpPort: pb.port + 1, rtcpMux: false },
      clockRate: 8000,
      rtcpIntervalMs: 40,
      onRtcp: () => {
        if (++reportsAtA >= 3 && a.stats().rttMs !== undefined) resolveDone()
      },
    })
    const b = new RtpSession({ ports: pb, remote: { address: '127.0.0.1', rtpPort: pa.port, rtcpPort: pa.port + 1, rtcpMux: false }, clockRate: 8000, rtcpIntervalMs: 40 })
    cleanup.push(() => [a, b].forEach((x) => x.close()), () => [pa, pb].forEach((x) => x.release()))
    for (let i = 0; i < 10; i++) a.send(0, new Uint8Array(160), i * 160)
    await done
    const sa = a.stats()
    const sb = b.stats()
    expect(sa.rttMs).toBeGreaterThanOrEqual(0)
    expect(sa.rttMs).toBeLessThan(50)
    expect(sb.packetsReceived).toBe(10)
    expect(sa.remotePacketsLost).toBe(0)
    expect(sa.remoteJitterMs).toBeGreaterThanOrEqual(0)
    expect(sb.remoteSsrc).toBe(sa.ssrc)
  })
})
