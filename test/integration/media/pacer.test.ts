import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { tone } from '../../../src/realtime/media/codec/index.ts'
import { MediaEngine } from '../../../src/realtime/media/index.ts'
import { Pacer, sockaddrOf, type PacedOwner } from '../../../src/realtime/media/pacer/index.ts'
import { descriptorOf } from '../../../src/realtime/media/rtp/port-pool.ts'
import { clockSkips, slope, startTestCall, type TestCall } from '../../helpers/media-call.ts'
import { RtpPeer } from '../../helpers/rtp-peer.ts'
import { tempDir } from '../../helpers/tmp.ts'

const EBADF = 9

/** A receiving socket that notes when each datagram arrived. */
async function receiver() {
  const got: { atMs: number; bytes: number[] }[] = []
  let waiting: { n: number; resolve: () => void } | undefined
  const socket = await Bun.udpSocket({
    hostname: '127.0.0.1',
    port: 0,
    binaryType: 'uint8array',
    socket: {
      data: (_s, data) => {
        got.push({ atMs: performance.now(), bytes: [...data] })
        if (waiting && got.length >= waiting.n) waiting.resolve()
      },
    },
  })
  /** Resolves once `n` datagrams have arrived (loopback delivers after sendto returned). */
  const received = (n: number) => (got.length >= n ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { n, resolve })))
  return { socket, got, received }
}

function owner() {
  const late: number[] = []
  const errors: number[] = []
  const o: PacedOwner = { sent: (ms) => late.push(ms), failed: (errno) => errors.push(errno) }
  return { o, late, errors }
}

let pacer: Pacer
beforeAll(async () => {
  pacer = await Pacer.start({ priority: 0, leadMs: 6 })
})
afterAll(async () => {
  await pacer.stop()
})

describe('pacer thread', () => {
  test('queued datagrams leave in order and none before its instant, and each one reports its lateness', async () => {
    const from = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, binaryType: 'uint8array' })
    const to = await receiver()
    const { o, late, errors } = owner()
    const start = performance.now()
    const due = [30, 40, 50, 60, 70].map((ms) => start + ms)
    for (const [i, at] of due.entries()) expect(pacer.push(descriptorOf(from)!, sockaddrOf('127.0.0.1', to.socket.port, 'IPv4')!, new Uint8Array([i, 0xaa]), at, o)).toBe(true)
    await pacer.settled()
    expect(pacer.pending).toBe(0)
    await to.received(5)
    expect(to.got.map((g) => g.bytes)).toEqual([0, 1, 2, 3, 4].map((i) => [i, 0xaa]))
    // arrival is after the send, which waited for the instant (0.05 ms of float slack)
    to.got.forEach((g, i) => expect(g.atMs).toBeGreaterThanOrEqual(due[i]! - 0.05))
    expect(errors).toEqual([])
    expect(late.length).toBe(5)
    for (const ms of late) expect(ms).toBeGreaterThanOrEqual(-0.05)
    from.close()
    to.socket.close()
  })

  test('a send the kernel refuses is reported to its owner with the errno, and the next still goes', async () => {
    const from = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, binaryType: 'uint8array' })
    const to = await receiver()
    const { o, late, errors } = owner()
    const address = sockaddrOf('127.0.0.1', to.socket.port, 'IPv4')!
    const now = performance.now()
    pacer.push(1_000_000, address, new Uint8Array([1]), now, o) // no such descriptor
    pacer.push(descriptorOf(from)!, address, new Uint8Array([2]), now, o)
    await pacer.settled()
    expect(errors).toEqual([EBADF])
    expect(late.length).toBe(1)
    await to.received(1)
    expect(to.got.map((g) => g.bytes)).toEqual([[2]])
    from.close()
    to.socket.close()
  })
})

describe('a full pacer', () => {
  test('refuses what does not fit (the caller sends it at once), and what it queued reports to its own owner', async () => {
    const small = await Pacer.start({ priority: 0, leadMs: 6, slots: 2 })
    const from = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, binaryType: 'uint8array' })
    const to = await receiver()
    const address = sockaddrOf('127.0.0.1', to.socket.port, 'IPv4')!
    const [a, b, c] = [owner(), owner(), owner()]
    const due = performance.now() + 50
    expect(small.push(descriptorOf(from)!, address, new Uint8Array([1]), due, a.o)).toBe(true)
    expect(small.push(descriptorOf(from)!, address, new Uint8Array([2]), due, b.o)).toBe(true)
    expect(small.push(descriptorOf(from)!, address, new Uint8Array([3]), due, c.o)).toBe(false)
    expect(small.overflows).toBe(1)
    await small.settled()
    expect([a.late.length, b.late.length, c.late.length]).toEqual([1, 1, 0])
    await to.received(2)
    expect(to.got.map((g) => g.bytes)).toEqual([[1], [2]])
    await small.stop()
    from.close()
    to.socket.close()
  })

  test('a closed socket has no descriptor to queue for', async () => {
    const s = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, binaryType: 'uint8array' })
    expect(descriptorOf(s)).toBeGreaterThanOrEqual(0)
    s.close()
    expect(descriptorOf(s)).toBeUndefined()
  })
})

describe('call media through the pacer', () => {
  const open: { peer: RtpPeer; t: TestCall }[] = []
  afterEach(async () => {
    for (const o of open.splice(0)) {
      o.peer.close()
      await o.t.call.close().catch(() => {})
    }
  })

  test('the tone reaches the peer in every 20 ms slot: consecutive sequence numbers, 160-step timestamps, no drift', async () => {
    const peer = await RtpPeer.open()
    const t = await startTestCall(peer.port, {}, undefined, pacer)
    open.push({ peer, t })
    const skips = clockSkips()
    t.call.play(tone(1000, 16000, 16000 * 3, 8000))
    await peer.waitFor(() => peer.received.length >= 101)
    const got = peer.received.slice(0, 101)
    const seqSteps = got.slice(1).map((r, i) => (r.packet.sequenceNumber - got[i]!.packet.sequenceNumber + 0x10000) & 0xffff)
    expect(new Set(seqSteps)).toEqual(new Set([1]))
    const tsSteps = got.slice(1).map((r, i) => (r.packet.timestamp - got[i]!.packet.timestamp) >>> 0)
    if (clockSkips() > skips) {
      console.log(`media clock skipped ${clockSkips() - skips} steps: exact timeline not judged`)
      expect(tsSteps.every((s) => s > 0 && s % 160 === 0)).toBe(true)
    } else {
      expect(new Set(tsSteps)).toEqual(new Set([160]))
      // a slot prepared ahead is still one slot, none skipped or doubled: the least-squares period is 20 ms
      expect(Math.abs(slope(got.map((r) => r.atMs)) - 20)).toBeLessThan(0.05)
    }
    // the lateness the call reports is what the pacer measured for its packets
    const pacing = t.call.stats().pacing
    expect(pacing.packets).toBeGreaterThanOrEqual(100)
  })

  test('closing a call waits until the pacer has sent its queued packets, so its socket is not reused under them', async () => {
    const peer = await RtpPeer.open()
    const t = await startTestCall(peer.port, {}, undefined, pacer)
    t.call.play(tone(1000, 16000, 16000, 8000))
    await peer.waitFor(() => peer.received.length >= 5)
    peer.close()
    await t.call.close()
    expect(pacer.pending).toBe(0)
  })
})

describe('media engine pacer setting', () => {
  test('MEDIA_PACER=thread starts an ordinary pacer thread, and stop ends it', async () => {
    const engine = new MediaEngine({ RTP_PORT_MIN: 47000, RTP_PORT_MAX: 47100, DATA_DIR: tempDir('pacer-engine-'), MEDIA_PACER: 'thread' }, { bindHost: '127.0.0.1' })
    await engine.start()
    expect(engine.pacer?.mode).toBe('thread')
    await engine.stop()
    expect(engine.pacer).toBeUndefined()
  })

  test('MEDIA_PACER=realtime runs at SCHED_FIFO where the process may ask (root here), else as an ordinary thread', async () => {
    const engine = new MediaEngine({ RTP_PORT_MIN: 47000, RTP_PORT_MAX: 47100, DATA_DIR: tempDir('pacer-engine-'), MEDIA_PACER: 'realtime' }, { bindHost: '127.0.0.1' })
    await engine.start()
    expect(['realtime', 'thread']).toContain(engine.pacer!.mode)
    if (process.getuid?.() === 0) expect(engine.pacer!.mode).toBe('realtime')
    await engine.stop()
  })

  test('without MEDIA_PACER an engine starts none, and an unknown value is refused', () => {
    expect(new MediaEngine({ RTP_PORT_MIN: 47000, RTP_PORT_MAX: 47100, DATA_DIR: tempDir('pacer-engine-') }).pacer).toBeUndefined()
    expect(() => new MediaEngine({ RTP_PORT_MIN: 47000, RTP_PORT_MAX: 47100, DATA_DIR: tempDir('pacer-engine-'), MEDIA_PACER: 'fast' })).toThrow(/MEDIA_PACER/)
  })
})
