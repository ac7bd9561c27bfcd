import { describe, expect, test } from 'bun:test'
import { estimateIndex, ReplayWindow } from '../../../src/realtime/srtp/replay.ts'

describe('SRTP index estimation (RFC 3711 Appendix A)', () => {
  test('the first packet of a stream has rollover counter 0', () => {
    expect(estimateIndex(-1, 0)).toBe(0)
    expect(estimateIndex(-1, 65000)).toBe(65000)
  })

  test('a sequence number in the same cycle keeps the rollover counter', () => {
    expect(estimateIndex(3 * 65536 + 100, 101)).toBe(3 * 65536 + 101)
    expect(estimateIndex(3 * 65536 + 40000, 39000)).toBe(3 * 65536 + 39000)
  })

  test('a sequence number that wrapped past 65535 increments the rollover counter', () => {
    expect(estimateIndex(65535, 0)).toBe(65536)
    expect(estimateIndex(2 * 65536 + 65530, 3)).toBe(3 * 65536 + 3)
  })

  test('a late packet from before the wrap keeps the previous rollover counter', () => {
    expect(estimateIndex(65536 + 2, 65534)).toBe(65534)
  })

  test('with rollover counter 0 a far sequence number is taken as ahead, never as a negative index', () => {
    expect(estimateIndex(10, 65000)).toBe(65000)
  })

  test('indices past 2^32 stay exact', () => {
    const top = 0xffff_fff0 * 65536 + 65535
    expect(estimateIndex(top, 1)).toBe(0xffff_fff1 * 65536 + 1)
  })
})

describe('the replay window', () => {
  test('a packet already marked is no longer fresh', () => {
    const w = new ReplayWindow()
    expect(w.isFresh(5)).toBe(true)
    w.mark(5)
    expect(w.isFresh(5)).toBe(false)
    expect(w.isFresh(6)).toBe(true)
  })

  test('out-of-order packets inside the window are fresh once each', () => {
    const w = new ReplayWindow(64)
    w.mark(100)
    for (const i of [99, 40, 70]) {
      expect(w.isFresh(i)).toBe(true)
      w.mark(i)
      expect(w.isFresh(i)).toBe(false)
    }
    expect(w.top).toBe(100)
  })

  test('a packet older than the window is refused, since it cannot be told from a replay', () => {
    const w = new ReplayWindow(64)
    w.mark(1000)
    expect(w.isFresh(1000 - 63)).toBe(true)
    expect(w.isFresh(1000 - 64)).toBe(false)
  })

  test('moving the window forward forgets the slots it passes, however far it jumps', () => {
    const w = new ReplayWindow(64)
    for (let i = 0; i < 64; i++) w.mark(i)
    w.mark(70)
    for (let i = 64; i < 70; i++) expect(w.isFresh(i)).toBe(true)
    w.mark(10_000)
    expect(w.isFresh(9_990)).toBe(true)
    expect(w.isFresh(70)).toBe(false)
  })

  test('a window smaller than RFC 3711 allows is refused', () => {
    expect(() => new ReplayWindow(32)).toThrow(RangeError)
    expect(new ReplayWindow(1024).size).toBe(1024)
  })
})
