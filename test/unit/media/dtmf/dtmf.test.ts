import { describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { decodeG711, encodeG711 } from '../../../../src/realtime/media/codec/index.ts'
import { DtmfReceiver, dtmfPackets, InbandDtmfDetector, parseTelephoneEvent, type DtmfEvent } from '../../../../src/realtime/media/dtmf/index.ts'
import { parseRtp } from '../../../../src/realtime/media/rtp/index.ts'
import { readPcapUdp, SIPP_PCAP_DIR } from '../../../helpers/pcap.ts'

const pcaps = readdirSync(SIPP_PCAP_DIR).filter((f) => /^dtmf_2833_.+\.pcap$/.test(f))
const expectedDigit = (file: string) => {
  const name = file.slice('dtmf_2833_'.length, -'.pcap'.length)
  return name === 'pound' ? '#' : name === 'star' ? '*' : name
}

describe('RFC 4733 receive', () => {
  test('SIPp ships all twelve dtmf_2833 pcaps', () => {
    expect(pcaps.length).toBe(12)
  })

  for (const file of pcaps) {
    test(`${file} yields exactly one event for digit ${expectedDigit(file)} despite its three end packets`, () => {
      const rx = new DtmfReceiver(8000)
      const events: DtmfEvent[] = []
      const packets = readPcapUdp(join(SIPP_PCAP_DIR, file))
      for (const p of packets) {
        const rtp = parseRtp(p.payload)
        events.push(...rx.push(rtp.payload, rtp.timestamp, p.timeMs))
      }
      events.push(...rx.flush(packets.at(-1)!.timeMs + 5000))
      expect(events).toEqual([{ digit: expectedDigit(file), durationMs: 280, source: 'rfc4733' }])
    })
  }

  test('a press whose end packets are all lost is reported when the next press starts, or after the timeout', () => {
    const rx = new DtmfReceiver(8000, 1000)
    const noEnd = dtmfPackets('5').filter((p) => !parseTelephoneEvent(p.payload)!.end)
    const events: DtmfEvent[] = []
    for (const p of noEnd) events.push(...rx.push(p.payload, 1000, 0))
    expect(events).toEqual([])
    for (const p of dtmfPackets('7')) events.push(...rx.push(p.payload, 5000, 200))
    expect(events.map((e) => e.digit)).toEqual(['5', '7'])
    for (const p of noEnd) events.push(...rx.push(p.payload, 9000, 300))
    expect(rx.flush(900)).toEqual([])
    expect(rx.flush(1300).map((e) => e.digit)).toEqual(['5'])
  })

  test('the same digit pressed twice is two events (different timestamps); odd durations and garbage are tolerated', () => {
    const rx = new DtmfReceiver(8000)
    const digits: string[] = []
    for (const ts of [100, 2000]) for (const p of dtmfPackets('9', { durationMs: 77 })) digits.push(...rx.push(p.payload, ts, 0).map((e) => e.digit))
    expect(digits).toEqual(['9', '9'])
    expect(rx.push(Uint8Array.of(1, 2), 3000, 0)).toEqual([])
    expect(rx.push(Uint8Array.of(200, 0x80, 0, 10), 3000, 0)).toEqual([])
  })
})

describe('RFC 4733 send', () => {
  test('a 100 ms press at 20 ms packets: marker first, growing durations, three identical end packets', () => {
    const packets = dtmfPackets('#', { durationMs: 100 })
    const events = packets.map((p) => parseTelephoneEvent(p.payload)!)
    expect(packets.map((p) => p.marker)).toEqual([true, false, false, false, false, false, false])
    expect(events.map((e) => e.duration)).toEqual([160, 320, 480, 640, 800, 800, 800])
    expect(events.map((e) => e.end)).toEqual([false, false, false, false, true, true, true])
    expect(events.every((e) => e.event === 11)).toBe(true)
  })

  test('rejects a character that is not a DTMF digit', () => {
    expect(() => dtmfPackets('x')).toThrow(RangeError)
    expect(() => dtmfPackets('12')).toThrow(RangeError)
  })
})

describe('in-band DTMF (Goertzel)', () => {
  const FREQS: Record<string, [number, number]> = { '1': [697, 1209], '5': [770, 1336], '9': [852, 1477], '#': [941, 1477], '0': [941, 1336], D: [941, 1633] }
  let seed = 42
  const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5) * 2
  function keyTones(digits: string, rate: number, toneMs = 80, gapMs = 60, noiseAmp = 300): Int16Array {
    const parts: number[] = []
    for (const d of digits) {
      const [lo, hi] = FREQS[d]!
      for (let i = 0; i < (rate * toneMs) / 1000; i++) {
        parts.push(6000 * Math.sin((2 * Math.PI * lo * i) / rate) + 4500 * Math.sin((2 * Math.PI * hi * i) / rate) + noiseAmp * noise())
      }
      for (let i = 0; i < (rate * gapMs) / 1000; i++) parts.push(noiseAmp * noise())
    }
    return Int16Array.from(parts, (x) => Math.round(x))
  }

  test('detects each key once through G.711 at 8 kHz with background noise', () => {
    const audio = decodeG711('ulaw', encodeG711('ulaw', keyTones('159#0D', 8000)))
    const det = new InbandDtmfDetector(8000)
    const digits: string[] = []
    for (let i = 0; i < audio.length; i += 160) digits.push(...det.push(audio.subarray(i, i + 160)).map((e) => e.digit))
    expect(digits.join('')).toBe('159#0D')
  })

  test('detects keys at 16 kHz and ignores a single tone and speech-band noise', () => {
    const det = new InbandDtmfDetector(16000)
    expect(det.push(keyTones('9', 16000)).map((e) => e.digit)).toEqual(['9'])
    const single = Int16Array.from({ length: 16000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 16000)))
    expect(det.push(single)).toEqual([])
    const loudNoise = Int16Array.from({ length: 16000 }, () => Math.round(8000 * noise()))
    expect(det.push(loudNoise)).toEqual([])
  })
})
