import { describe, expect, test } from 'bun:test'
import { ReceiveWatch } from '../../../../src/realtime/media/call/receive-watch.ts'

describe('the media watchdog', () => {
  test('fires once when no packet came for the timeout, counted from the last packet', () => {
    const w = new ReceiveWatch(1000)
    w.expect(true, 0)
    w.packet(160, 500)
    expect(w.timedOut(1499)).toBe(false)
    expect(w.timedOut(1500)).toBe(true)
    expect(w.timedOut(5000)).toBe(false)
  })

  test('a call never heard from times out from the moment media became due', () => {
    const w = new ReceiveWatch(1000)
    w.expect(true, 200)
    expect(w.timedOut(1199)).toBe(false)
    expect(w.timedOut(1200)).toBe(true)
  })

  test('waits as long as the call is on hold, and counts again from when it is taken off hold', () => {
    const w = new ReceiveWatch(1000)
    w.expect(true, 0)
    w.packet(160, 100)
    w.expect(false, 200)
    expect(w.timedOut(60_000)).toBe(false)
    w.expect(true, 60_000)
    expect(w.timedOut(60_999)).toBe(false)
    expect(w.timedOut(61_000)).toBe(true)
  })

  test('a timeout of 0 never fires', () => {
    const w = new ReceiveWatch(0)
    w.expect(true, 0)
    expect(w.timedOut(1e9)).toBe(false)
  })

  test('keeps the bytes and the largest gap while media was due, the hold left out and a silence at the end included', () => {
    const w = new ReceiveWatch(0)
    w.expect(true, 0)
    w.packet(160, 1000)
    w.packet(160, 1020)
    w.packet(160, 1320)
    w.expect(false, 1400)
    w.packet(160, 9000) // music on hold: not a gap
    w.expect(true, 20_000)
    w.packet(160, 20_100)
    w.packet(160, 20_150)
    expect(w.stats(20_160)).toEqual({ bytesReceived: 960, maxGapMs: 300 })
    expect(w.stats(21_000)).toEqual({ bytesReceived: 960, maxGapMs: 850 })
  })
})
