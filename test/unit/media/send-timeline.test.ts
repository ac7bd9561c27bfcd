import { describe, expect, test } from 'bun:test'
import { GIVE_BACK_AFTER_SILENT, SendTimeline } from '../../../src/realtime/media/call/send-timeline.ts'

const sent = (d: ReturnType<SendTimeline['slot']>) => (d.send ? d.timestamp : undefined)

describe('the send timeline of a call', () => {
  test('slots carry the clock timestamp while no talk-spurt started early', () => {
    const t = new SendTimeline()
    expect([0, 160, 320].map((ts) => sent(t.slot(ts, ts > 0)))).toEqual([0, 160, 320])
  })

  test('an early talk-spurt takes the next slot timestamp, and the talk-spurt then runs one packet ahead', () => {
    const t = new SendTimeline()
    expect(sent(t.slot(0, false))).toBe(0)
    expect(t.early(160, 160)).toBe(160)
    expect([160, 320, 480].map((ts) => sent(t.slot(ts, true)))).toEqual([320, 480, 640])
  })

  test('a second early start while still ahead is refused (the timestamp may only jump forward once per lead)', () => {
    const t = new SendTimeline()
    t.early(160, 160)
    expect(t.early(320, 160)).toBeUndefined()
  })

  test('the lead is given back in a pause: one silent slot is skipped, then timestamps follow the clock with no step other than one packet', () => {
    const t = new SendTimeline()
    const stamps: number[] = [t.early(160, 160)!]
    let skipped = 0
    for (let slot = 1; slot <= 3 + GIVE_BACK_AFTER_SILENT + 3; slot++) {
      const d = t.slot(slot * 160, slot <= 3)
      if (d.send) stamps.push(d.timestamp)
      else skipped++
    }
    expect(skipped).toBe(1)
    expect(t.ahead).toBe(false)
    expect(new Set(stamps.slice(1).map((s, i) => s - stamps[i]!))).toEqual(new Set([160]))
    expect(stamps.at(-1)).toBe((3 + GIVE_BACK_AFTER_SILENT + 3) * 160) // back on the clock
  })

  test('a hold gives the lead back at once', () => {
    const t = new SendTimeline()
    t.early(160, 160)
    expect(t.pause()).toBe(true)
    expect(t.pause()).toBe(false)
    expect(sent(t.slot(800, true))).toBe(800)
  })
})
