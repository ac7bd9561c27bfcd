// A link whose far end conceals gaps (WebRTC) gets nothing while the agent is silent but a
// keepalive every 400 ms; a SIP link gets every frame. Timestamps come from the media clock's
// grid, so the assertions hold however late this machine's timers fire.
import { afterAll, describe, expect, test } from 'bun:test'
import { CallMedia, MediaClock, packetCountStats, type MediaLink } from '../../../../src/realtime/media/index.ts'
import { loopbackPcmu } from '../../../helpers/loopback-media.ts'

const TICKS_PER_MS = 8 // PCMU's 8 kHz RTP clock
const FRAME_TICKS = 20 * TICKS_PER_MS
const clock = new MediaClock()

interface Sent {
  ts: number
  marker: boolean
}

function callWith(discontinuous: boolean) {
  const sent: Sent[] = []
  let waiter: { until: (s: Sent[]) => boolean; resolve: () => void } | undefined
  const link: MediaLink = {
    discontinuous,
    send(_pt, _payload, ts, marker) {
      sent.push({ ts, marker })
      if (waiter?.until(sent)) waiter.resolve()
    },
    stats: () => packetCountStats(1, { packets: sent.length, octets: 0 }, 0),
    close() {},
  }
  const call = new CallMedia({ link: () => link, clock, media: loopbackPcmu(9) })
  const sentUntil = (until: (s: Sent[]) => boolean) => new Promise<void>((resolve) => (until(sent) ? resolve() : (waiter = { until, resolve })))
  return { call, sent, sentUntil }
}

const tone = (ms: number) => Int16Array.from({ length: 16 * ms }, (_, i) => Math.round(8000 * Math.sin(i / 3)))
const span = (sent: Sent[]) => sent.at(-1)!.ts - sent[0]!.ts

describe('discontinuous transmission', () => {
  const open: CallMedia[] = []
  afterAll(async () => {
    for (const c of open) await c.close()
  })

  test('a link that conceals gaps gets no packets while the agent is silent, bar a keepalive every 400 ms', async () => {
    const { call, sent, sentUntil } = callWith(true)
    open.push(call)
    call.play(tone(100))
    // audio, the hangover, then at least three keepalives: over a second of the agent's silence
    await sentUntil((s) => s.length > 3 && span(s) >= 1400 * TICKS_PER_MS)
    // the tone is 5 frames and the hangover 3 more, then only keepalives. A late timer may shift
    // where the tone starts on the grid, so the talkspurt ends at the first keepalive-sized gap.
    const firstGap = sent.findIndex((s, i) => i > 0 && s.ts - sent[i - 1]!.ts >= 400 * TICKS_PER_MS)
    expect(firstGap).toBeGreaterThanOrEqual(5)
    expect(firstGap).toBeLessThanOrEqual(8)
    const last = firstGap - 1
    const gaps = sent.slice(last + 1).map((s, i) => s.ts - sent[last + i]!.ts)
    expect(gaps.length).toBeGreaterThanOrEqual(3)
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(400 * TICKS_PER_MS)
    expect(sent.length).toBeLessThan(20) // 70 frames went by

    const before = sent.length
    call.play(tone(60))
    await sentUntil((s) => s.length >= before + 3)
    const resumed = sent[before]!
    expect(resumed.marker).toBe(true) // a talkspurt after the gap, as RFC 7587 asks
    expect(sent[before + 2]!.ts - resumed.ts).toBeLessThan(400 * TICKS_PER_MS) // a stream again, not keepalives
  })

  test('a SIP link gets every frame, silent or not', async () => {
    const { call, sent, sentUntil } = callWith(false)
    open.push(call)
    call.play(tone(100))
    await sentUntil((s) => s.length > 3 && span(s) >= 600 * TICKS_PER_MS)
    const frames = span(sent) / FRAME_TICKS + 1
    // the clock skips ahead after a stall of a busy machine; nothing else leaves a hole
    expect(sent.length).toBeGreaterThanOrEqual(frames - clock.skippedTicks)
    expect(sent.length).toBeGreaterThan(25 - clock.skippedTicks)
  })
})
