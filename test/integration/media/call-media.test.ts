import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { decodeG711, encodeG711, OpusCodec, opusAvailable, tone, toneLevelDb } from '../../../src/realtime/media/codec/index.ts'
import { parseRtp, serializeRtp, type RtpPacket } from '../../../src/realtime/media/rtp/index.ts'
import { CODEC_DEFAULTS } from '../../../src/realtime/telephony/sdp/index.ts'
import { bestCorrelation, clockSkips, readStereoWav, slope, startTestCall, type TestCall } from '../../helpers/media-call.ts'
import { readPcapUdp, SIPP_PCAP_DIR } from '../../helpers/pcap.ts'
import { RtpPeer } from '../../helpers/rtp-peer.ts'
import { FarPeer } from '../../helpers/far-peer.ts'

const open: { peer?: RtpPeer; call?: TestCall }[] = []
const cleanupFar: (() => void)[] = []
afterEach(async () => {
  cleanupFar.splice(0).forEach((f) => f())
  for (const o of open.splice(0)) {
    o.peer?.close()
    await o.call?.call.close().catch(() => {})
  }
})

async function setup(over: Parameters<typeof startTestCall>[1] = {}, jitter?: Parameters<typeof startTestCall>[2]) {
  const peer = await RtpPeer.open()
  const call = await startTestCall(peer.port, over, jitter)
  open.push({ peer, call })
  return { peer, t: call }
}

/** p99 of |gap - 20 ms| for a plain drift-free setTimeout loop: what the runtime's timers give. */
function bareTimerGapP99(n: number): Promise<number> {
  const start = performance.now()
  const times: number[] = []
  return new Promise((resolve) => {
    const step = () => {
      times.push(performance.now())
      if (times.length > n) return resolve(percentile(times.slice(1).map((t, i) => Math.abs(t - times[i]! - 20)), 99))
      setTimeout(step, Math.max(0, start + times.length * 20 - performance.now()))
    }
    setTimeout(step, 20)
  })
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil((p / 100) * xs.length) - 1]!

describe('call media: sending', () => {
  test('a queued tone reaches the peer with consecutive sequence numbers, 160-step timestamps, one SSRC and no drift', async () => {
    const { peer, t } = await setup()
    const skips = clockSkips()
    t.call.play(tone(1000, 16000, 16000 * 3, 8000))
    await peer.waitFor(() => peer.received.length >= 101)
    const got = peer.received.slice(0, 101)
    const seqSteps = got.slice(1).map((r, i) => (r.packet.sequenceNumber - got[i]!.packet.sequenceNumber + 0x10000) & 0xffff)
    const tsSteps = got.slice(1).map((r, i) => (r.packet.timestamp - got[i]!.packet.timestamp) >>> 0)
    expect(new Set(seqSteps)).toEqual(new Set([1]))
    expect(got[0]!.packet.marker).toBe(true)
    expect(got.slice(1).some((r) => r.packet.marker)).toBe(false)
    expect(new Set(got.map((r) => r.packet.ssrc)).size).toBe(1)
    if (clockSkips() > skips) {
      // the process stalled for more than 30 ms and the clock skipped ahead (by design): the
      // timeline keeps whole frames, and the exact 20 ms grid is not judged on this machine now
      console.log(`media clock skipped ${clockSkips() - skips} steps: exact timeline not judged`)
      expect(tsSteps.every((s) => s > 0 && s % 160 === 0)).toBe(true)
    } else {
      expect(new Set(tsSteps)).toEqual(new Set([160]))
      // Drift-free: the least-squares period over 100 packets is 20 ms, whatever single timers did.
      expect(Math.abs(slope(got.map((r) => r.atMs)) - 20)).toBeLessThan(0.05)
    }
    // The payload is the tone: decode one packet and look for 1 kHz.
    const pcm = decodeG711('ulaw', got[50]!.packet.payload)
    expect(toneLevelDb(pcm, 1000, 8000)).toBeGreaterThan(-20)
  })

  test.if(opusAvailable())('Opus calls send 960 timestamp units per 20 ms with the negotiated payload type, and the audio decodes', async () => {
    const { peer, t } = await setup({ codec: { ...CODEC_DEFAULTS.opus, payloadType: 96 }, telephoneEvent: { payloadType: 101, clockRate: 48000 } })
    t.call.play(tone(1000, 16000, 16000, 8000))
    await peer.waitFor(() => peer.received.length >= 20)
    const got = peer.received.slice(0, 20)
    expect(new Set(got.slice(1).map((r, i) => (r.packet.timestamp - got[i]!.packet.timestamp) >>> 0))).toEqual(new Set([960]))
    expect(new Set(got.map((r) => r.packet.payloadType))).toEqual(new Set([96]))
    const decoder = new OpusCodec(16000)
    let pcm: Int16Array = new Int16Array(0)
    for (const r of got) pcm = decoder.decode(r.packet.payload)
    expect(pcm.length).toBe(320)
    expect(toneLevelDb(pcm, 1000, 16000)).toBeGreaterThan(-25)
  })

  test('pacing seen by a peer in another process: inter-packet gap p99 within 2 ms of 20 ms (or the same-run timer baseline)', async () => {
    const far = new FarPeer()
    cleanupFar.push(() => far.kill())
    far.send({ cmd: 'open', targets: [9] }) // receive only: it is never told to start sending
    const { ports } = (await far.next()) as { ports: number[] }
    const t = await startTestCall(ports[0]!)
    open.push({ call: t })
    const baselineTimer = bareTimerGapP99(100)
    t.call.play(tone(1000, 16000, 16000 * 3, 8000))
    await t.afterFrames(5)
    far.send({ cmd: 'reset' }) // steady state: leave out the first tick's start-up work
    await t.afterFrames(100)
    far.send({ cmd: 'stop' })
    const figures = (await far.next()) as { received: number; gapDeviationP99Ms: number }
    const baseline = await baselineTimer
    const own = t.call.stats().pacing
    console.log(`pacing: gap deviation p99 ${figures.gapDeviationP99Ms.toFixed(2)} ms at a peer process; our send lateness p99 ${own.p99Ms} max ${own.maxMs.toFixed(1)} ms; a bare timer loop here: ${baseline.toFixed(2)} ms`)
    expect(figures.received).toBeGreaterThanOrEqual(100)
    // The bound is 2 ms. A bare drift-free timer loop measured in the same run is the
    // instrument: when it alone is off by more than 1 ms, the machine is too disturbed to judge a
    // 2 ms bound, and the check is reported as inconclusive (sequence and timestamp checks stay).
    if (baseline <= 1) expect(figures.gapDeviationP99Ms).toBeLessThanOrEqual(Math.max(2, baseline * 1.25 + 2))
    else console.log(`pacing bound not judged: the bare timer loop itself had p99 ${baseline.toFixed(2)} ms`)
  })

  test('a reply after silence leaves at once: its first packet is sent inside play(), with the marker and the next slot timestamp; the lead is given back in the next pause', async () => {
    const { peer, t } = await setup()
    const skips = clockSkips()
    await peer.waitFor(() => peer.received.length >= 5) // the agent is silent: silence packets flow
    const before = t.call.stats().rtp.packetsSent
    t.call.play(tone(1000, 16000, 16000 / 2, 8000)) // 500 ms: 25 packets
    expect(t.call.stats().rtp.packetsSent).toBe(before + 1) // no wait for the call's next slot
    const spurt = before // the peer receives in order on 127.0.0.1
    await peer.waitFor(() => peer.received.length >= spurt + 25 + 30)
    const got = peer.received.slice(0, spurt + 25 + 30).map((r) => r.packet)
    expect(got[spurt]!.marker).toBe(true)
    expect(toneLevelDb(decodeG711('ulaw', got[spurt]!.payload), 1000, 8000)).toBeGreaterThan(-20)
    expect(got.slice(1).filter((p) => p.marker).length).toBe(1) // only the talk-spurt's start
    // one timeline: every step one packet (160), across the early start and the given-back slot
    const tsSteps = got.slice(1).map((p, i) => (p.timestamp - got[i]!.timestamp) >>> 0)
    expect(new Set(got.slice(1).map((p, i) => (p.sequenceNumber - got[i]!.sequenceNumber + 0x10000) & 0xffff))).toEqual(new Set([1]))
    if (clockSkips() > skips) {
      // a stall of more than 30 ms made the clock skip ahead (by design): whole frames, no exact grid
      console.log(`media clock skipped ${clockSkips() - skips} steps: exact timeline not judged`)
      expect(tsSteps.every((s) => s > 0 && s % 160 === 0)).toBe(true)
      return
    }
    expect(new Set(tsSteps)).toEqual(new Set([160]))
    // within the talk-spurt the stream runs one packet ahead of the clock; after the pause the
    // skipped slot has given that back and timestamps match the wall clock again
    const aheadMs = (i: number) => ((got[i]!.timestamp - got[0]!.timestamp) >>> 0) / 8 - (peer.received[i]!.atMs - peer.received[0]!.atMs)
    expect(Math.round(aheadMs(spurt + 5) / 20)).toBe(1)
    expect(Math.abs(Math.round(aheadMs(got.length - 1) / 20))).toBe(0)
  })

  test('a single frame after silence (audio bridged frame by frame) waits for its slot: sent early, the next slot would find nothing', async () => {
    const { peer, t } = await setup()
    await peer.waitFor(() => peer.received.length >= 3)
    const before = t.call.stats().rtp.packetsSent
    t.call.play(tone(1000, 16000, 320, 8000))
    expect(t.call.stats().rtp.packetsSent).toBe(before)
    await peer.waitFor(() => peer.received.some((r) => r.packet.marker && r !== peer.received[0]))
  })

  test('flush stops the queue at once and each item reports how much of it was played', async () => {
    const { peer, t } = await setup()
    const first = t.call.play(tone(500, 16000, 32000))
    const second = t.call.play(tone(700, 16000, 16000))
    await peer.waitFor(() => peer.received.length >= 16)
    const results = t.call.flush()
    const [a, b] = await Promise.all([first.done, second.done])
    expect(results).toEqual([a, b])
    expect(a.interrupted).toBe(true)
    // 15 packets after the first (silence-free) one: about 300 ms, give or take a packet in flight.
    expect(a.playedMs).toBeGreaterThanOrEqual(280)
    expect(a.playedMs).toBeLessThanOrEqual(380)
    expect(b).toEqual({ playedMs: 0, interrupted: true })
    expect(t.call.queuedMs).toBe(0)
  })

  test('an item that plays out completely resolves with its full duration', async () => {
    const { t } = await setup()
    const h = t.call.play(tone(500, 16000, 1600))
    expect(await h.done).toEqual({ playedMs: 100, interrupted: false })
  })

  test('after hang-up, play resolves at once as not played and DTMF or re-INVITEs are refused', async () => {
    const { t } = await setup()
    await t.call.close()
    expect(await t.call.play(tone(500, 16000, 1600)).done).toEqual({ playedMs: 0, interrupted: true })
    expect(() => t.call.sendDtmf('1')).toThrow('closed')
    expect(() => t.call.update(t.media)).toThrow('closed')
    await expect(t.call.close()).rejects.toThrow('closed')
  })

  test('RFC 4733 digits go out with one timestamp per press, the marker on its first packet, and three end packets', async () => {
    const { peer, t } = await setup()
    t.call.sendDtmf('4#', 100)
    await peer.waitFor(() => peer.received.filter((r) => r.packet.payloadType === 101).length >= 14)
    const events = peer.received.filter((r) => r.packet.payloadType === 101).map((r) => r.packet)
    const byTs = new Map<number, RtpPacket[]>()
    for (const p of events) byTs.set(p.timestamp, [...(byTs.get(p.timestamp) ?? []), p])
    expect([...byTs.values()].map((ps) => ps.length)).toEqual([7, 7])
    for (const ps of byTs.values()) {
      expect(ps.map((p) => p.marker)).toEqual([true, false, false, false, false, false, false])
      expect(ps.filter((p) => (p.payload[1]! & 0x80) !== 0).length).toBe(3)
    }
    expect([...byTs.values()].map((ps) => ps[0]!.payload[0])).toEqual([4, 11])
    expect(() => t.call.sendDtmf('4x')).toThrow(RangeError)
  })

  test('while the peer holds the call no audio is sent; on unhold packets resume with the marker and the clock-true timestamp', async () => {
    const { peer, t } = await setup()
    t.call.play(tone(1000, 16000, 16000 * 5))
    await peer.waitFor(() => peer.received.length >= 5)
    t.call.update({ ...t.media, direction: 'recvonly', remoteHold: true })
    const atHold = peer.received.length
    await t.afterFrames(15)
    const duringHold = peer.received.length - atHold
    expect(duringHold).toBeLessThanOrEqual(1) // at most one packet already on the wire
    const lastBefore = peer.received.at(-1)!
    t.call.update(t.media)
    await peer.waitFor(() => peer.received.length > atHold + duringHold)
    const resumed = peer.received[atHold + duringHold]!
    expect(resumed.packet.marker).toBe(true)
    const tsGap = (resumed.packet.timestamp - lastBefore.packet.timestamp) >>> 0
    const wallGap = resumed.atMs - lastBefore.atMs
    expect(Math.abs(tsGap / 8 - wallGap)).toBeLessThan(25)
    expect(tsGap).toBeGreaterThan(15 * 160)
  })
})

describe('call media: receiving', () => {
  test("SIPp's g711a.pcap (30 ms packets) replayed over UDP lands in the recording's left channel, correlating >= 0.95", async () => {
    const { peer, t } = await setup({ codec: CODEC_DEFAULTS.PCMA, ptimeMs: 30 })
    const packets = readPcapUdp(join(SIPP_PCAP_DIR, 'g711a.pcap')).slice(0, 120)
    await peer.sendPaced(packets.map((p) => p.payload), 30, t.call.localPort)
    await t.afterFrames(20)
    await t.call.close()
    open.length = 0
    peer.close()
    const reference = decodeG711('alaw', Uint8Array.from(packets.flatMap((p) => [...parseRtp(p.payload).payload])))
    const { left, sampleRate } = readStereoWav(t.recordingPath)
    expect(sampleRate).toBe(16000)
    // Compare at 8 kHz: every other sample of the band-limited 16 kHz recording.
    const left8 = Int16Array.from({ length: left.length >> 1 }, (_, i) => left[2 * i]!)
    const { r, lag } = bestCorrelation(reference, left8, 4000, 1)
    expect(lag).toBeGreaterThan(0)
    expect(r).toBeGreaterThanOrEqual(0.95)
  })

  test("each of SIPp's dtmf_2833 pcaps replayed over UDP yields exactly one event with the right digit", async () => {
    const { peer, t } = await setup()
    const files = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', 'star', 'pound']
    const expected = files.map((f) => (f === 'star' ? '*' : f === 'pound' ? '#' : f))
    let seq = 0
    const all: Uint8Array[] = []
    for (const f of files) {
      for (const p of readPcapUdp(join(SIPP_PCAP_DIR, `dtmf_2833_${f}.pcap`))) {
        const rtp = parseRtp(p.payload)
        all.push(serializeRtp({ ...rtp, sequenceNumber: seq++ & 0xffff }))
      }
    }
    await peer.sendPaced(all, 20, t.call.localPort)
    await t.afterFrames(5)
    expect(t.dtmf.map((e) => e.digit)).toEqual(expected)
    expect(t.dtmf.every((e) => e.source === 'rfc4733')).toBe(true)
  })

  test('SIP INFO digits surface as the same event type', async () => {
    const { t } = await setup()
    t.call.injectDtmf('7', 160)
    expect(t.dtmf).toEqual([{ digit: '7', durationMs: 160, source: 'sip-info' }])
    expect(() => t.call.injectDtmf('x')).toThrow(RangeError)
  })
})
