import { describe, expect, test } from 'bun:test'
import { JitterBuffer, type JitterPacket, type PopResult } from '../../../../src/realtime/media/jitter/index.ts'

const pkt = (seq: number, ssrc = 1, ts = seq * 160): JitterPacket => ({
  sequenceNumber: seq & 0xffff,
  timestamp: ts >>> 0,
  ssrc,
  payload: Uint8Array.of(seq & 0xff),
})

/** Runs a scripted timeline: `arrivals` are [arrivalMs, packet]; pops every 20 ms from 0 to endMs. */
function run(jb: JitterBuffer, arrivals: [number, JitterPacket][], endMs: number): PopResult[] {
  const sorted = [...arrivals].sort((a, b) => a[0] - b[0])
  const out: PopResult[] = []
  let i = 0
  for (let now = 0; now <= endMs; now += 20) {
    while (i < sorted.length && sorted[i]![0] <= now) {
      const [at, p] = sorted[i++]!
      jb.push(p, at)
    }
    out.push(jb.pop())
  }
  return out
}
const played = (results: PopResult[]) =>
  results.flatMap((r): (number | string)[] => (r.kind === 'packet' ? [r.packet.sequenceNumber] : r.kind === 'lost' ? ['lost'] : []))

describe('JitterBuffer', () => {
  test('buffers up to the initial delay, then plays in order one packet per step', () => {
    const jb = new JitterBuffer({ clockRate: 8000, initialDelayMs: 60 })
    const results = run(jb, Array.from({ length: 10 }, (_, s) => [s * 20, pkt(s)]), 260)
    expect(results.slice(0, 2).every((r) => r.kind === 'buffering')).toBe(true)
    expect(played(results).slice(0, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(results.find((r) => r.kind === 'packet')).toMatchObject({ durationSamples: 160 })
  })

  test('reordered packets come out in sequence order', () => {
    const jb = new JitterBuffer({ clockRate: 8000, initialDelayMs: 60 })
    const order = [0, 2, 1, 3, 5, 4, 7, 6, 8, 9]
    const results = run(jb, order.map((s, i) => [i * 20, pkt(s)]), 300)
    expect(played(results).slice(0, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(jb.stats().lost).toBe(0)
  })

  test('duplicates are counted and played once', () => {
    const jb = new JitterBuffer({ clockRate: 8000 })
    const arrivals: [number, JitterPacket][] = []
    for (let s = 0; s < 8; s++) arrivals.push([s * 20, pkt(s)], [s * 20 + 1, pkt(s)])
    expect(played(run(jb, arrivals, 300)).slice(0, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(jb.stats().duplicates).toBe(8)
  })

  test('a lost packet is reported once for concealment and playout continues', () => {
    const jb = new JitterBuffer({ clockRate: 8000 })
    const seqs = [0, 1, 2, 4, 5, 6, 7]
    expect(played(run(jb, seqs.map((s) => [s * 20, pkt(s)]), 300)).slice(0, 8)).toEqual([0, 1, 2, 'lost', 4, 5, 6, 7])
    expect(jb.stats().lost).toBe(1)
  })

  test('a packet arriving after its playout slot is discarded as late', () => {
    const jb = new JitterBuffer({ clockRate: 8000, initialDelayMs: 40, minDelayMs: 40 })
    const arrivals: [number, JitterPacket][] = [0, 1, 2, 4, 5, 6, 7, 8].map((s) => [s * 20, pkt(s)])
    arrivals.push([200, pkt(3)])
    const results = run(jb, arrivals, 300)
    expect(played(results).slice(0, 8)).toEqual([0, 1, 2, 'lost', 4, 5, 6, 7])
    expect(jb.stats().late).toBe(1)
  })

  test('sequence numbers wrap from 65535 to 0 without reordering', () => {
    const jb = new JitterBuffer({ clockRate: 8000 })
    const seqs = [65533, 65534, 0, 65535, 1, 2, 3]
    const results = run(jb, seqs.map((s, i) => [i * 20, pkt(s, 1, (s < 100 ? s + 65536 : s) * 160)]), 300)
    expect(played(results).slice(0, 7)).toEqual([65533, 65534, 65535, 0, 1, 2, 3])
  })

  test('an SSRC change resets the buffer and the new stream plays from its first packet', () => {
    const jb = new JitterBuffer({ clockRate: 8000 })
    const arrivals: [number, JitterPacket][] = []
    for (let i = 0; i < 5; i++) arrivals.push([i * 20, pkt(100 + i, 1)])
    for (let i = 0; i < 5; i++) arrivals.push([200 + i * 20, pkt(9000 + i, 2, 777 + i * 160)])
    const results = run(jb, arrivals, 500)
    const seqs = played(results).filter((s) => s !== 'lost')
    expect(seqs.slice(-5)).toEqual([9000, 9001, 9002, 9003, 9004])
    expect(jb.stats().resets).toBe(1)
  })

  test('a large sequence jump on the same SSRC restarts the stream instead of waiting for the gap', () => {
    const jb = new JitterBuffer({ clockRate: 8000 })
    const arrivals: [number, JitterPacket][] = []
    for (let i = 0; i < 5; i++) arrivals.push([i * 20, pkt(i)])
    for (let i = 0; i < 5; i++) arrivals.push([200 + i * 20, pkt(30000 + i)])
    const seqs = played(run(jb, arrivals, 500))
    expect(seqs.filter((s) => typeof s === 'number' && s >= 30000)).toEqual([30000, 30001, 30002, 30003, 30004])
  })

  test('jitter raises the target depth and the delay never exceeds the maximum', () => {
    const jb = new JitterBuffer({ clockRate: 8000, minDelayMs: 40, maxDelayMs: 160 })
    // Seeded pseudo-random network delay between 0 and 80 ms.
    let seed = 7
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)
    const arrivals: [number, JitterPacket][] = Array.from({ length: 300 }, (_, s) => [s * 20 + rand() * 80, pkt(s)])
    const results = run(jb, arrivals, 300 * 20 + 400)
    const stats = jb.stats()
    expect(stats.jitterMs).toBeGreaterThan(10)
    expect(stats.targetDelayMs).toBeGreaterThan(40)
    expect(stats.maxDelayMs).toBeLessThanOrEqual(160 + 40)
    const seqs = played(results).filter((s) => s !== 'lost') as number[]
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    expect(stats.played + stats.late + stats.dropped + stats.lost).toBeGreaterThanOrEqual(300)
  })

  test('rejects a minimum delay above the maximum', () => {
    expect(() => new JitterBuffer({ clockRate: 8000, minDelayMs: 300, maxDelayMs: 100 })).toThrow(RangeError)
  })
})
