import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import {
  looksLikeRtcp,
  parseRtcp,
  parseRtp,
  ReceiveStats,
  roundTripMs,
  RtpParseError,
  serializeRtcp,
  serializeRtp,
  ntpFromUnixMs,
  ntpMiddle32,
} from '../../../../src/realtime/media/rtp/index.ts'
import { readPcapUdp, SIPP_PCAP_DIR } from '../../../helpers/pcap.ts'

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'))
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex')

describe('RTP packets', () => {
  test('a plain PCMA packet from SIPp g711a.pcap parses to its fields and serializes back byte for byte', () => {
    const packets = readPcapUdp(join(SIPP_PCAP_DIR, 'g711a.pcap'))
    expect(packets.length).toBeGreaterThan(100)
    for (const { payload } of packets) expect(toHex(serializeRtp(parseRtp(payload)))).toBe(toHex(payload))
    const first = parseRtp(packets[0]!.payload)
    expect(first).toMatchObject({ marker: true, payloadType: 8, sequenceNumber: 0xe6fd, timestamp: 0xf0, ssrc: 0xdee0ee8f })
    expect(first.payload.length).toBe(240)
  })

  test('CSRCs, a header extension and padding survive a round trip', () => {
    const bytes = hex(`
      b2 e0 0102 0000 03e8 11223344
      aaaaaaaa bbbbbbbb
      bede 0001 10ff0000
      c0ffee
      000000 04`)
    const p = parseRtp(bytes)
    expect(p.csrcs).toEqual([0xaaaaaaaa, 0xbbbbbbbb])
    expect(p.extension?.profile).toBe(0xbede)
    expect(toHex(p.extension!.data)).toBe('10ff0000')
    expect(toHex(p.payload)).toBe('c0ffee')
    expect(p.padding?.length).toBe(4)
    expect(p).toMatchObject({ marker: true, payloadType: 96, sequenceNumber: 0x0102, timestamp: 1000 })
    expect(toHex(serializeRtp(p))).toBe(toHex(bytes))
  })

  test('malformed packets raise RtpParseError instead of crashing', () => {
    for (const bad of ['', '80', '40000000000000000000000000', '8f00000000000000000000aa', '9000000000000000000000000000', 'a000000000000000000000000005']) {
      expect(() => parseRtp(hex(bad))).toThrow(RtpParseError)
    }
  })

  test('RTCP on a muxed port is told apart from RTP by its payload type range', () => {
    expect(looksLikeRtcp(hex('80c8000600000001000000000000000000000000'))).toBe(true)
    expect(looksLikeRtcp(hex('8008e6fd000000f0dee0ee8f'))).toBe(false)
  })
})

describe('RTCP packets', () => {
  // SR with one report block + SDES CNAME + BYE with a reason, as one compound datagram.
  const compound = hex(`
    81c8 000c 11223344
    e6f1a0b2 80000000 000003e8 00000064 00003e80
    55667788 0a000005 0001ffff 00000014 a0b28000 00008000
    81ca 0004 11223344 0109 61406578616d706c65 00
    81cb 0003 11223344 04 62796521 000000`)

  test('a compound SR + SDES + BYE parses to its fields and serializes back byte for byte', () => {
    const packets = parseRtcp(compound)
    expect(packets.map((p) => p.type)).toEqual(['sr', 'sdes', 'bye'])
    const sr = packets[0]!
    if (sr.type !== 'sr') throw new Error('expected SR')
    expect(sr).toMatchObject({ ssrc: 0x11223344, ntpSec: 0xe6f1a0b2, rtpTimestamp: 1000, packetCount: 100, octetCount: 16000 })
    expect(sr.reports[0]).toEqual({
      ssrc: 0x55667788,
      fractionLost: 10,
      packetsLost: 5,
      highestSequence: 0x1ffff,
      jitter: 20,
      lastSr: 0xa0b28000,
      delaySinceLastSr: 0x8000,
    })
    expect(packets[1]).toEqual({ type: 'sdes', chunks: [{ ssrc: 0x11223344, items: [{ type: 1, text: 'a@example' }] }] })
    expect(packets[2]).toEqual({ type: 'bye', ssrcs: [0x11223344], reason: 'bye!' })
    expect(toHex(serializeRtcp(packets))).toBe(toHex(compound))
  })

  test('an RR with a negative cumulative loss (duplicates) and an unknown APP packet round-trip', () => {
    const bytes = hex(`81c9 0007 00000001 00000002 00fffffe 00000010 00000000 00000000 00000000
                       80cc 0002 00000001 41424344`)
    const packets = parseRtcp(bytes)
    expect(packets[0]).toMatchObject({ type: 'rr', reports: [{ packetsLost: -2 }] })
    expect(packets[1]).toMatchObject({ type: 'other', packetType: 204 })
    expect(toHex(serializeRtcp(packets))).toBe(toHex(bytes))
  })

  test('a length field pointing past the datagram raises RtpParseError', () => {
    expect(() => parseRtcp(hex('81c9 00ff 00000001'))).toThrow(RtpParseError)
    expect(() => parseRtcp(hex('81c8 0001 00000001'))).toThrow(RtpParseError)
    expect(() => parseRtcp(hex('41c9 0001 00000001'))).toThrow(RtpParseError)
  })
})

describe('RTP receive statistics', () => {
  test('loss, fraction lost and jitter follow RFC 3550 over a scripted stream with a sequence wrap', () => {
    const s = new ReceiveStats(0xabc, 8000)
    // 20 packets from seq 65530 across the wrap, every 5th lost, arrivals jittered by +-5 ms.
    let arrivals = 0
    for (let i = 0; i < 20; i++) {
      if (i % 5 === 4) continue
      const jitter = i % 2 === 0 ? 5 : -5
      s.update((65530 + i) & 0xffff, i * 160, 1000 + i * 20 + jitter)
      arrivals++
    }
    const block = s.reportBlock(2000)
    // Highest received is i = 18 (seq 65548 = 1 cycle + 12); 19 expected, 16 received (i = 4, 9, 14 lost).
    expect(block.highestSequence).toBe(65536 + 12)
    expect(s.received).toBe(arrivals)
    expect(block.packetsLost).toBe(3)
    expect(block.fractionLost).toBe(Math.floor((3 * 256) / 19))
    expect(s.reportBlock(2100).fractionLost).toBe(0)
  })

  test('interarrival jitter converges to the transit difference (10 ms = 80 units at 8 kHz)', () => {
    const s = new ReceiveStats(1, 8000)
    for (let i = 0; i < 300; i++) s.update(i, i * 160, 1000 + i * 20 + (i % 2 === 0 ? 5 : -5))
    expect(s.jitterTs).toBeGreaterThanOrEqual(78)
    expect(s.jitterTs).toBeLessThanOrEqual(80)
    expect(s.jitterMs).toBeCloseTo(10, 0)
  })

  test('round-trip time comes from LSR and DLSR in the report block', () => {
    const sentAt = Date.UTC(2026, 0, 1, 12)
    const [sec, frac] = ntpFromUnixMs(sentAt)
    const lsr = ntpMiddle32(sec, frac)
    // The peer held our SR for 250 ms and its report reached us 330 ms after we sent the SR.
    const rtt = roundTripMs(
      { ssrc: 1, fractionLost: 0, packetsLost: 0, highestSequence: 0, jitter: 0, lastSr: lsr, delaySinceLastSr: 0.25 * 65536 },
      sentAt + 330,
    )
    expect(rtt).toBeCloseTo(80, 0)
  })
})
