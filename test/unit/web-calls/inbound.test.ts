// The caller's audio from a media-stream client: cut into 20 ms packets whatever the frame
// sizes, one released per media-clock step, marks echoed once their audio has gone to the call.
import { expect, test } from 'bun:test'
import { InboundAudio } from '../../../src/features/web-calls/stream/inbound.ts'

const queue = (limits = { maxQueuedBytes: 16_000, maxMarks: 2 }) => new InboundAudio(160, 0xff, limits)
const bytes = (n: number, v = 1) => new Uint8Array(n).fill(v)

test('frames of any size come out as 20 ms packets, one per step, in order', () => {
  const q = queue()
  q.push(bytes(100, 1))
  q.push(bytes(300, 2))
  const first = q.tick().packet!
  expect(first.length).toBe(160)
  expect([first[0], first[99], first[100]]).toEqual([1, 1, 2])
  expect(q.tick().packet!.every((b) => b === 2)).toBe(true)
  // 80 bytes wait for the rest of their frame
  expect(q.tick()).toEqual({ marks: [] })
  q.push(bytes(80, 3))
  expect(q.tick().packet!.subarray(78, 82)).toEqual(Uint8Array.from([2, 2, 3, 3]))
})

test('a mark with no audio waiting is echoed at once; after audio it waits for that audio', () => {
  const q = queue()
  expect(q.mark('first')).toBe('now')
  q.push(bytes(320))
  expect(q.mark('after-two')).toBe('queued')
  expect(q.tick()).toEqual({ packet: expect.any(Uint8Array), marks: [] })
  expect(q.tick().marks).toEqual(['after-two'])
  expect(q.mark('nothing-left')).toBe('now')
})

test('a mark after part of a frame pads the frame with silence rather than wait for the rest', () => {
  const q = queue()
  q.push(bytes(40, 7))
  expect(q.mark('m')).toBe('queued')
  const t = q.tick()
  expect(t.marks).toEqual(['m'])
  expect([t.packet![39], t.packet![40], t.packet![159]]).toEqual([7, 0xff, 0xff])
})

test('clear drops the waiting audio and gives back the marks that waited', () => {
  const q = queue()
  q.push(bytes(480))
  q.mark('a')
  q.push(bytes(50))
  expect(q.clear()).toEqual(['a'])
  expect(q.tick()).toEqual({ marks: [] })
  expect(q.mark('b')).toBe('now')
})

test('audio beyond the limit is refused whole; marks beyond theirs too', () => {
  const q = queue()
  expect(q.push(bytes(16_000))).toBe('ok')
  expect(q.push(bytes(1))).toBe('full')
  expect(q.mark('1')).toBe('queued')
  expect(q.mark('2')).toBe('queued')
  expect(q.mark('3')).toBe('too_many')
  for (let i = 0; i < 100; i++) q.tick()
  expect(q.push(bytes(160))).toBe('ok')
})

test('a long stream stays bounded: the released packets are let go', () => {
  const q = queue()
  for (let i = 0; i < 10_000; i++) {
    q.push(bytes(160, i & 0xff))
    expect(q.tick().packet![0]).toBe(i & 0xff)
  }
  expect((q as unknown as { items: unknown[] }).items.length).toBeLessThan(600)
})
