// RtpSession with SDES keys over real UDP on 127.0.0.1: SRTP/SRTCP both ways under every suite,
// what goes on the wire, refusals that are dropped and counted without moving the latch, re-keys,
// and the same through CallMedia (DTMF, audio and the recording downstream of the decryption).
import { afterEach, describe, expect, test } from 'bun:test'
import { encodeG711, tone, toneLevelDb } from '../../../src/realtime/media/codec/index.ts'
import { dtmfPackets, parseTelephoneEvent } from '../../../src/realtime/media/dtmf/index.ts'
import { parseRtp, RtpPortPool, RtpSession, serializeRtp, type BoundPorts, type RtpPacket, type RtpSrtpKeys } from '../../../src/realtime/media/rtp/index.ts'
import { generateInlineKey, SRTP_SUITES, SrtpInbound, SrtpKeyError, SrtpOutbound, type SrtpSuite } from '../../../src/realtime/srtp/index.ts'
import type { NegotiatedMedia } from '../../../src/realtime/telephony/sdp/index.ts'
import { readStereoWav, startTestCall, type TestCall } from '../../helpers/media-call.ts'
import { RtpPeer } from '../../helpers/rtp-peer.ts'

const BASE = 46000 + 2 * Math.floor(Math.random() * 1000)
const pool = new RtpPortPool(BASE, BASE + 200, '127.0.0.1')
const SUITES = Object.keys(SRTP_SUITES) as SrtpSuite[]
const cleanup: (() => unknown)[] = []
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f()
})

const crossed = (suite: SrtpSuite): [RtpSrtpKeys, RtpSrtpKeys] => {
  const a = generateInlineKey(suite)
  const b = generateInlineKey(suite)
  return [
    { suite, sendKey: a, receiveKey: b },
    { suite, sendKey: b, receiveKey: a },
  ]
}

interface Side {
  s: RtpSession
  ports: BoundPorts
  packets: RtpPacket[]
  /** Resolves once `until()` holds, re-checked on every packet delivered. */
  waitFor(until: () => boolean): Promise<void>
}

async function side(remotePort: number, srtp: RtpSrtpKeys | undefined, extra: Partial<ConstructorParameters<typeof RtpSession>[0]> = {}): Promise<Side> {
  const ports = await pool.bind()
  const packets: RtpPacket[] = []
  let waiters: { until: () => boolean; resolve: () => void }[] = []
  const s = new RtpSession({
    ports,
    remote: { address: '127.0.0.1', rtpPort: remotePort, rtcpPort: remotePort + 1, rtcpMux: true },
    clockRate: 8000,
    srtp,
    onPacket: (p) => {
      packets.push({ ...p, payload: p.payload.slice() })
      waiters = waiters.filter((w) => (w.until() ? (w.resolve(), false) : true))
    },
    ...extra,
  })
  cleanup.push(() => {
    s.close()
    ports.release()
  })
  const waitFor = (until: () => boolean) =>
    until()
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`not met after 5 s (${packets.length} packets)`)), 5000)
          waiters.push({ until, resolve: () => (clearTimeout(timer), resolve()) })
        })
  return { s, ports, packets, waitFor }
}

/** Two sessions pointed at each other, with crossed keys (or none). */
async function pair(keys: [RtpSrtpKeys, RtpSrtpKeys] | undefined, extra: Partial<ConstructorParameters<typeof RtpSession>[0]> = {}, rtcpMux = true) {
  const a = await side(9, keys?.[0], extra)
  const b = await side(a.ports.port, keys?.[1], extra)
  a.s.setRemote({ address: '127.0.0.1', rtpPort: b.ports.port, rtcpPort: b.ports.port + 1, rtcpMux })
  b.s.setRemote({ address: '127.0.0.1', rtpPort: a.ports.port, rtcpPort: a.ports.port + 1, rtcpMux })
  return { a, b }
}

const audio = (i: number) => encodeG711('ulaw', tone(300 + 50 * i, 8000, 160, 6000))

async function observer() {
  const peer = await RtpPeer.open()
  cleanup.push(() => peer.close())
  return peer
}

function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const copy = bytes.slice()
  copy[at]! ^= 0x01
  return copy
}

describe('SRTP RTP session: both ways under every suite', () => {
  for (const suite of SUITES) {
    test(`${suite}: audio and RFC 4733 DTMF arrive decrypted on both sides, nothing refused, keys nowhere in the stats`, async () => {
      const keys = crossed(suite)
      const { a, b } = await pair(keys)
      const dtmf = dtmfPackets('5', { durationMs: 100, clockRate: 8000, packetMs: 20 })
      for (let i = 0; i < 5; i++) a.s.send(0, audio(i), i * 160, i === 0)
      for (const p of dtmf) a.s.send(101, p.payload, 5 * 160, p.marker)
      for (let i = 0; i < 3; i++) b.s.send(8, audio(10 + i), i * 160)
      const total = 5 + dtmf.length
      await b.waitFor(() => b.packets.length === total)
      await a.waitFor(() => a.packets.length === 3)
      expect(b.packets.slice(0, 5).map((p) => [p.payloadType, Buffer.from(p.payload).toString('hex')])).toEqual(
        Array.from({ length: 5 }, (_, i) => [0, Buffer.from(audio(i)).toString('hex')]),
      )
      expect(b.packets[0]!.marker).toBe(true)
      const events = b.packets.slice(5).map((p) => [p.payloadType, parseTelephoneEvent(p.payload)])
      expect(events).toEqual(dtmf.map((p) => [101, parseTelephoneEvent(p.payload)]))
      expect(events.at(-1)![1]).toMatchObject({ event: 5, end: true })
      expect(a.packets.map((p) => Buffer.from(p.payload).toString('hex'))).toEqual([10, 11, 12].map((i) => Buffer.from(audio(i)).toString('hex')))
      for (const x of [a, b]) {
        const stats = x.s.stats()
        expect(stats.srtp).toEqual({ suite, authFailures: 0, replays: 0, malformed: 0 })
        expect(stats.malformedPackets).toBe(0)
        const json = JSON.stringify(stats)
        for (const k of keys) expect(json).not.toContain(k.sendKey)
      }
      expect(a.s.stats().latchedTo).toBe(`127.0.0.1:${b.ports.port}`)
    })
  }
})

describe('SRTP on the wire', () => {
  for (const suite of SUITES) {
    test(`${suite}: the payload sent is not the plain payload, the packet is longer by the tag, the header stays readable`, async () => {
      const [ka] = crossed(suite)
      const peer = await observer()
      const a = await side(peer.port, ka)
      const payload = audio(1)
      a.s.send(0, payload, 0, true)
      a.s.send(0, payload, 160)
      await peer.waitFor(() => peer.received.length === 2)
      const tag = SRTP_SUITES[suite].rtpTagBytes
      const reader = new SrtpInbound(suite, ka.sendKey)
      for (const [i, r] of peer.received.entries()) {
        expect(r.bytes.length).toBe(12 + payload.length + tag)
        expect(r.packet.ssrc).toBe(a.s.ssrc)
        expect(r.packet.marker).toBe(i === 0)
        expect(Buffer.from(r.bytes.subarray(12, 12 + payload.length)).equals(Buffer.from(payload))).toBe(false)
        const opened = reader.unprotectRtp(r.bytes.slice())
        expect(opened).toBeInstanceOf(Uint8Array)
        expect(Buffer.from(parseRtp(opened as Uint8Array).payload).equals(Buffer.from(payload))).toBe(true)
      }
      // the two sealed payloads differ although the plain ones are equal: a keystream per packet
      expect(Buffer.from(peer.received[0]!.bytes.subarray(12)).equals(Buffer.from(peer.received[1]!.bytes.subarray(12)))).toBe(false)
      expect(a.s.stats()).toMatchObject({ packetsSent: 2, octetsSent: 2 * payload.length })
    })
  }

  test('a plain session is unchanged: plain payload on the wire, no srtp in its stats', async () => {
    const peer = await observer()
    const a = await side(peer.port, undefined)
    const payload = audio(2)
    a.s.send(0, payload, 0)
    await peer.waitFor(() => peer.received.length === 1)
    expect(peer.received[0]!.bytes.length).toBe(12 + payload.length)
    expect(Buffer.from(peer.received[0]!.packet.payload).equals(Buffer.from(payload))).toBe(true)
    expect('srtp' in a.s.stats()).toBe(false)
  })
})

describe('SRTP refusals', () => {
  test('a flipped bit, a replay and a runt are dropped and counted, and only an authentic packet latches', async () => {
    const [ka, kb] = crossed('AES_CM_128_HMAC_SHA1_80')
    const genuine = await observer() // stands in for the peer: sends A's sealed packets on
    const attacker = await observer() // same address, another port
    const a = await side(genuine.port, ka)
    const b = await side(genuine.port + 100, kb) // the SDP port is not the source port: the latch decides
    for (let i = 0; i < 3; i++) a.s.send(0, audio(i), i * 160)
    await genuine.waitFor(() => genuine.received.length === 3)
    const [c0, c1, c2] = genuine.received.map((r) => r.bytes)
    const seq0 = genuine.received[0]!.packet.sequenceNumber
    const to = b.ports.port
    attacker.send(flipped(c0!, 20), to) // before any latch: forged, must not latch
    attacker.send(Uint8Array.of(0x80, 0, 0), to) // runt
    genuine.send(c0!, to) // authentic: latches
    attacker.send(c1!, to) // authentic bytes, wrong source once latched
    genuine.send(flipped(c1!, 12), to)
    genuine.send(flipped(c1!, c1!.length - 1), to) // the tag itself
    genuine.send(c0!, to) // replay
    genuine.send(c1!, to)
    genuine.send(c2!, to)
    await b.waitFor(() => b.packets.length === 3)
    expect(b.packets.map((p) => p.sequenceNumber)).toEqual([seq0, (seq0 + 1) & 0xffff, (seq0 + 2) & 0xffff])
    const stats = b.s.stats()
    expect(stats.srtp).toEqual({ suite: 'AES_CM_128_HMAC_SHA1_80', authFailures: 3, replays: 1, malformed: 1 })
    expect(stats).toMatchObject({ packetsReceived: 3, rejectedPackets: 1, malformedPackets: 0, latchedTo: `127.0.0.1:${genuine.port}` })
  })

  test('a forged packet from a trusted address does not latch; the peer that authenticates does', async () => {
    const [ka, kb] = crossed('AEAD_AES_128_GCM')
    const attacker = await observer()
    const genuine = await observer()
    const a = await side(genuine.port, ka)
    const b = await side(genuine.port, kb)
    // an attacker who knows the SSRC and sequence but not the key: a well-formed packet under another key
    const forger = new SrtpOutbound('AEAD_AES_128_GCM', generateInlineKey('AEAD_AES_128_GCM'))
    a.s.send(0, audio(0), 0)
    await genuine.waitFor(() => genuine.received.length === 1)
    const real = genuine.received[0]!.packet
    const forged = forger.protectRtp(serializeRtp({ ...real, payload: new Uint8Array(160) })) as Uint8Array
    attacker.send(forged, b.ports.port)
    genuine.send(genuine.received[0]!.bytes, b.ports.port)
    await b.waitFor(() => b.packets.length === 1)
    expect(b.s.stats()).toMatchObject({ latchedTo: `127.0.0.1:${genuine.port}`, srtp: { authFailures: 1 } })
    // and our packets go to the authenticated source
    b.s.send(0, audio(1), 0)
    await genuine.waitFor(() => genuine.received.length === 2)
    expect(attacker.received).toHaveLength(0)
  })

  test('plain RTP to an SRTP session is refused and counted as an authentication failure', async () => {
    const [ka] = crossed('AES_CM_128_HMAC_SHA1_32')
    const peer = await observer()
    const b = await side(peer.port, ka)
    peer.send(serializeRtp({ marker: false, payloadType: 0, sequenceNumber: 1, timestamp: 0, ssrc: 7, csrcs: [], payload: audio(0) }), b.ports.port)
    peer.send(serializeRtp({ marker: false, payloadType: 0, sequenceNumber: 2, timestamp: 160, ssrc: 7, csrcs: [], payload: audio(0) }), b.ports.port)
    // a packet the session can open, sent last: once it is delivered the plain ones were handled
    const sealer = new SrtpOutbound('AES_CM_128_HMAC_SHA1_32', ka.receiveKey)
    peer.send(sealer.protectRtp(serializeRtp({ marker: false, payloadType: 0, sequenceNumber: 3, timestamp: 320, ssrc: 7, csrcs: [], payload: audio(1) })) as Uint8Array, b.ports.port)
    await b.waitFor(() => b.packets.length === 1)
    expect(b.packets[0]!.sequenceNumber).toBe(3)
    expect(b.s.stats().srtp).toMatchObject({ authFailures: 2 })
  })

  test('keys that do not fit their suite, and unknown suites, throw without quoting the key', () => {
    const ports = { port: 0, rtp: undefined, rtcp: undefined, setHandlers() {}, release() {} } as unknown as BoundPorts
    const remote = { address: '127.0.0.1', rtpPort: 9, rtcpPort: 9, rtcpMux: true }
    const gcmKey = generateInlineKey('AEAD_AES_128_GCM') // 28 bytes: too short for AES-CM's 30
    let err: unknown
    try {
      new RtpSession({ ports, remote, clockRate: 8000, srtp: { suite: 'AES_CM_128_HMAC_SHA1_80', sendKey: gcmKey, receiveKey: gcmKey } })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(SrtpKeyError)
    expect(String(err)).not.toContain(gcmKey)
    expect(() => new RtpSession({ ports, remote, clockRate: 8000, srtp: { suite: 'F8_128_HMAC_SHA1_80', sendKey: gcmKey, receiveKey: gcmKey } })).toThrow(SrtpKeyError)
  })
})

describe('SRTCP', () => {
  for (const rtcpMux of [true, false]) {
    test(`reports flow protected and are parsed by the peer (rtcp-mux ${rtcpMux}): loss, jitter and round-trip time`, async () => {
      const keys = crossed('AES_CM_128_HMAC_SHA1_32')
      let reports = 0
      let resolveDone!: () => void
      const done = new Promise<void>((r) => (resolveDone = r))
      let first: RtpSession | undefined
      const { a, b } = await pair(
        keys,
        {
          rtcpIntervalMs: 40,
          onRtcp: () => {
            if (++reports >= 3 && first!.stats().rttMs !== undefined) resolveDone()
          },
        },
        rtcpMux,
      )
      first = a.s
      reports = 0
      for (let i = 0; i < 10; i++) a.s.send(0, audio(i), i * 160)
      await done
      const sa = a.s.stats()
      const sb = b.s.stats()
      expect(sb.packetsReceived).toBe(10)
      expect(sa.rttMs).toBeGreaterThanOrEqual(0)
      expect(sa.rttMs).toBeLessThan(50)
      expect(sa.remotePacketsLost).toBe(0)
      expect(sb.remoteSsrc).toBe(sa.ssrc)
      for (const s of [sa, sb]) expect(s.srtp).toMatchObject({ authFailures: 0, replays: 0, malformed: 0 })
      expect(sa.malformedPackets + sb.malformedPackets).toBe(0)
    })
  }

  test('an RTCP report on the wire is SRTCP: E flag set, longer by index and tag, body not plain', async () => {
    const [ka] = crossed('AES_CM_128_HMAC_SHA1_80')
    const seen: Uint8Array[] = []
    const sock = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0, binaryType: 'uint8array', socket: { data: (_s, d) => void seen.push(d) } })
    cleanup.push(() => sock.close())
    const a = await side(sock.port, ka, { rtcpIntervalMs: 30 })
    a.s.send(0, audio(0), 0)
    const deadline = Date.now() + 5000
    while (!seen.some((d) => d[1]! === 200) && Date.now() < deadline) await Bun.sleep(10)
    const sr = seen.find((d) => d[1]! === 200)!
    expect(sr).toBeDefined()
    const plainLength = ((sr[2]! << 8) | sr[3]!) * 4 + 4 // the SR's own length; an SDES chunk follows it
    expect(sr.length).toBeGreaterThan(plainLength + 14)
    const word = (sr[sr.length - 14]! << 24) | (sr[sr.length - 13]! << 16) | (sr[sr.length - 12]! << 8) | sr[sr.length - 11]!
    expect(word >>> 31).toBe(1)
    const opened = new SrtpInbound('AES_CM_128_HMAC_SHA1_80', ka.sendKey).unprotectRtcp(sr.slice())
    expect(opened).toBeInstanceOf(Uint8Array)
    expect((opened as Uint8Array).length).toBe(sr.length - 14)
    // the CNAME travels encrypted
    expect(Buffer.from(sr).includes(Buffer.from('appliance@'))).toBe(false)
    expect(Buffer.from(opened as Uint8Array).includes(Buffer.from('appliance@'))).toBe(true)
  })
})

describe('SRTP re-key', () => {
  test('new keys on both sides: media carries on, packets in flight under the old key still open, old keys stop after the new one is heard', async () => {
    const keys1 = crossed('AES_CM_128_HMAC_SHA1_80')
    const keys2 = crossed('AEAD_AES_128_GCM')
    const { a, b } = await pair(keys1)
    a.s.send(0, audio(0), 0)
    await b.waitFor(() => b.packets.length === 1)
    // B has the new keys (it answered the re-INVITE) before A's last packets under the old key arrive
    b.s.setSrtp(keys2[1])
    a.s.send(0, audio(1), 160)
    await b.waitFor(() => b.packets.length === 2)
    a.s.setSrtp(keys2[0])
    a.s.send(0, audio(2), 320)
    b.s.send(0, audio(3), 0)
    await b.waitFor(() => b.packets.length === 3)
    await a.waitFor(() => a.packets.length === 1)
    expect(b.packets.map((p) => Buffer.from(p.payload).toString('hex'))).toEqual([0, 1, 2].map((i) => Buffer.from(audio(i)).toString('hex')))
    expect(b.s.stats().srtp).toEqual({ suite: 'AEAD_AES_128_GCM', authFailures: 0, replays: 0, malformed: 0 })
    // once the new key has been heard, a packet under the old key is refused
    const stale = new SrtpOutbound('AES_CM_128_HMAC_SHA1_80', keys1[0].sendKey)
    const peer = await observer()
    b.s.setRemote({ address: '127.0.0.1', rtpPort: peer.port, rtcpPort: peer.port, rtcpMux: true }) // latch dropped: the observer may latch
    // the next sequence number: an old one (the session's start is random) would be refused as a replay before its tag is checked
    const next = (b.packets[2]!.sequenceNumber + 1) & 0xffff
    peer.send(stale.protectRtp(serializeRtp({ marker: false, payloadType: 0, sequenceNumber: next, timestamp: 0, ssrc: a.s.ssrc, csrcs: [], payload: audio(4) })) as Uint8Array, b.ports.port)
    // a genuine packet sent after it: once it is delivered, the stale one (sent first, on the loopback) has been judged
    a.s.send(0, audio(5), 480)
    await b.waitFor(() => b.packets.length === 4)
    expect(Buffer.from(b.packets[3]!.payload).toString('hex')).toBe(Buffer.from(audio(5)).toString('hex'))
    expect(b.s.stats()).toMatchObject({ srtp: { authFailures: 1 }, latchedTo: `127.0.0.1:${a.ports.port}` })
  })

  test('the same keys again (a re-INVITE that keeps them) keep the contexts: the replay window survives', async () => {
    const [ka, kb] = crossed('AES_CM_128_HMAC_SHA1_80')
    const genuine = await observer()
    const a = await side(genuine.port, ka)
    const b = await side(genuine.port, kb)
    a.s.send(0, audio(0), 0)
    a.s.send(0, audio(1), 160)
    await genuine.waitFor(() => genuine.received.length === 2)
    genuine.send(genuine.received[0]!.bytes, b.ports.port)
    b.s.setSrtp({ ...kb })
    genuine.send(genuine.received[0]!.bytes, b.ports.port) // replay across the "re-key"
    genuine.send(genuine.received[1]!.bytes, b.ports.port)
    await b.waitFor(() => b.packets.length === 2)
    expect(b.s.stats().srtp).toMatchObject({ replays: 1, authFailures: 0 })
  })

  test('SRTP can be turned off and on by a re-INVITE', async () => {
    const keys = crossed('AES_CM_128_HMAC_SHA1_32')
    const { a, b } = await pair(keys)
    a.s.send(0, audio(0), 0)
    await b.waitFor(() => b.packets.length === 1)
    a.s.setSrtp(undefined)
    b.s.setSrtp(undefined)
    expect('srtp' in b.s.stats()).toBe(false)
    a.s.send(0, audio(1), 160)
    await b.waitFor(() => b.packets.length === 2)
    const again = crossed('AES_CM_128_HMAC_SHA1_80')
    a.s.setSrtp(again[0])
    b.s.setSrtp(again[1])
    a.s.send(0, audio(2), 320)
    await b.waitFor(() => b.packets.length === 3)
    expect(b.s.stats().srtp).toEqual({ suite: 'AES_CM_128_HMAC_SHA1_80', authFailures: 0, replays: 0, malformed: 0 })
  })
})

describe('SRTP through CallMedia', () => {
  const open: TestCall[] = []
  afterEach(async () => {
    for (const c of open.splice(0)) await c.call.close().catch(() => {})
  })

  test('negotiated keys reach the session: DTMF and audio leave sealed, the peer audio is decrypted before the jitter buffer and the recording', async () => {
    const suite: SrtpSuite = 'AES_CM_128_HMAC_SHA1_80'
    const [ours] = crossed(suite)
    const peer = await observer()
    const t = await startTestCall(peer.port, { srtp: ours } as Partial<NegotiatedMedia>)
    open.push(t)
    const reader = new SrtpInbound(suite, ours.sendKey)
    const sealer = new SrtpOutbound(suite, ours.receiveKey)
    // the peer sends a 1 kHz tone, sealed, for 1 s
    const pcm = tone(1000, 8000, 8000, 8000)
    const sending = peer.sendPaced(
      Array.from({ length: 50 }, (_, i) =>
        sealer.protectRtp(serializeRtp({ marker: i === 0, payloadType: 0, sequenceNumber: i, timestamp: i * 160, ssrc: 0xabc, csrcs: [], payload: encodeG711('ulaw', pcm.subarray(i * 160, (i + 1) * 160)) })) as Uint8Array,
      ),
      20,
      t.call.localPort,
    )
    t.call.sendDtmf('7', 100)
    // every packet the call sends opens with its key, in arrival order (so the replay window is satisfied)
    const events: ReturnType<typeof parseTelephoneEvent>[] = []
    let opened = 0
    let refused = 0
    await peer.waitFor(() => {
      for (; opened < peer.received.length; opened++) {
        const plain = reader.unprotectRtp(peer.received[opened]!.bytes.slice())
        if (typeof plain === 'string') refused++
        else if (peer.received[opened]!.packet.payloadType === 101) events.push(parseTelephoneEvent(parseRtp(plain).payload))
      }
      return events.some((e) => e?.end)
    })
    await sending
    await t.afterFrames(10)
    expect(refused).toBe(0)
    expect(events.every((e) => e?.event === 7)).toBe(true)
    // as sent, the event payload is not readable
    const sealedEvent = peer.received.find((r) => r.packet.payloadType === 101)!
    expect(sealedEvent.bytes.length).toBe(12 + 4 + 10)
    const stats = t.call.stats()
    expect(stats.rtp.srtp).toEqual({ suite, authFailures: 0, replays: 0, malformed: 0 })
    expect(stats.rtp.packetsReceived).toBe(50)
    const heard = t.frames.slice(-40)
    const loud = heard.filter((f) => toneLevelDb(f, 1000, 16000) > -30).length
    expect(loud).toBeGreaterThan(20)
    await t.call.close()
    open.length = 0
    const rec = readStereoWav(t.recordingPath)
    expect(toneLevelDb(rec.left, 1000, 16000)).toBeGreaterThan(-30)
  })
})
