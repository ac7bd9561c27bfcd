import { afterEach, expect, test } from 'bun:test'
import { encodeG711, tone, toneLevelDb } from '../../../src/realtime/media/codec/index.ts'
import { serializeRtp } from '../../../src/realtime/media/rtp/index.ts'
import { readStereoWav, startTestCall, type TestCall } from '../../helpers/media-call.ts'
import { ImpairmentRelay } from '../../helpers/impairment-relay.ts'
import { RtpPeer } from '../../helpers/rtp-peer.ts'

// Each packet carries a tone whose frequency encodes its index mod 16, so the order of the
// audio in the recording can be read back frame by frame.
const FREQS = Array.from({ length: 16 }, (_, i) => 400 + 160 * i)
const PACKETS = 150

let cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const f of cleanup) await f()
  cleanup = []
})

test('through 5% loss, 40 ms jitter, reordering and duplicates the recording stays in order, gaps stay within concealment, delay within bound', async () => {
  const peer = await RtpPeer.open()
  // The relay must know the call's port and the call the relay's: open the call first, then point it at the relay.
  const t: TestCall = await startTestCall(0, {}, { minDelayMs: 40, maxDelayMs: 160 })
  const live = await ImpairmentRelay.open({ port: t.call.localPort }, { seed: 12345, lossRate: 0.05, jitterMs: 40, duplicateRate: 0.03 })
  t.call.update({ ...t.media, remotePort: live.port, remoteRtcpPort: live.port })
  cleanup.push(() => peer.close(), () => live.close())

  const packets = Array.from({ length: PACKETS }, (_, i) =>
    serializeRtp({
      marker: i === 0,
      payloadType: 0,
      sequenceNumber: (65500 + i) & 0xffff, // crosses the sequence wrap too
      timestamp: i * 160,
      ssrc: 0x5eed,
      csrcs: [],
      payload: encodeG711('ulaw', tone(FREQS[i % 16]!, 8000, 160, 9000)),
    }),
  )
  await peer.sendPaced(packets, 20, live.port)
  await t.afterFrames(15)
  const stats = t.call.stats()
  await t.call.close()

  expect(live.dropped).toBeGreaterThan(2)
  expect(live.duplicated).toBeGreaterThan(1)
  // A duplicate that arrives after its original played is dropped as late instead.
  expect(stats.jitter.duplicates + stats.jitter.late).toBeGreaterThan(0)
  expect(stats.jitter.maxDelayMs).toBeLessThanOrEqual(160 + 20)

  // Read back which tone each 20 ms frame of the caller channel holds (16 kHz, mid-frame window).
  const { left } = readStereoWav(t.recordingPath)
  const ids: (number | null)[] = []
  for (let f = 0; f + 320 <= left.length; f += 320) {
    const levels = FREQS.map((hz) => toneLevelDb(left, hz, 16000, f + 60, f + 260))
    const best = levels.indexOf(Math.max(...levels))
    const second = Math.max(...levels.filter((_, i) => i !== best))
    ids.push(levels[best]! > -40 && levels[best]! - second > 6 ? best : null)
  }
  const first = ids.findIndex((x) => x !== null)
  const last = ids.length - 1 - [...ids].reverse().findIndex((x) => x !== null)
  const body = ids.slice(first, last + 1)
  // No reordering: consecutive recognised tones step forward by 0 (a concealment repeat) or
  // 1..3 (lost packets in between), never backwards.
  let backwards = 0
  let prev: number | null = null
  for (const id of body) {
    if (id === null) continue
    if (prev !== null) {
      const step = (id - prev + 16) % 16
      if (step > 3) backwards++
    }
    prev = id
  }
  expect(backwards).toBe(0)
  // No silent run longer than the concealment can cover plus one rebuffering step (80 ms).
  let run = 0
  let longest = 0
  for (const id of body) {
    run = id === null ? run + 1 : 0
    longest = Math.max(longest, run)
  }
  const j = stats.jitter
  console.log(`impairment: longest silent run ${longest} frames, ${body.filter((x) => x !== null).length}/${PACKETS} frames recognised, jitter buffer lost ${j.lost} late ${j.late} dup ${j.duplicates} underruns ${j.underruns} max delay ${j.maxDelayMs} ms`)
  expect(longest).toBeLessThanOrEqual(4)
  expect(body.filter((x) => x !== null).length).toBeGreaterThan(PACKETS * 0.85)
})
