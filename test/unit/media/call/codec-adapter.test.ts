import { expect, test } from 'bun:test'
import { G711Codec } from '../../../../src/realtime/media/call/codec-adapter.ts'
import { createResampler, encodeG711, tone } from '../../../../src/realtime/media/codec/index.ts'

// Talk, a long pause, talk again, a short pause: the frames an agent's turn-taking produces.
function frames(frameSamples: number): Int16Array[] {
  const talk = (n: number, hz: number) => Array.from({ length: n }, (_, i) => tone(hz, 16000, frameSamples, 8000).map((v, j) => v + ((i * 7 + j) % 5)))
  const quiet = (n: number) => Array.from({ length: n }, () => new Int16Array(frameSamples))
  return [...talk(5, 440), ...quiet(12), ...talk(3, 1000), ...quiet(2), ...talk(1, 300), ...quiet(8)]
}

for (const [law, frameSamples] of [['ulaw', 320], ['alaw', 320], ['ulaw', 160], ['alaw', 960]] as const) {
  test(`${law} ${frameSamples / 16} ms: skipping the resampler for long silence sends exactly the bytes the full path sends`, () => {
    const codec = new G711Codec(law)
    const down = createResampler(16000, 8000)
    const input = frames(frameSamples)
    const resampler = (codec as unknown as { down: { processView(pcm: Int16Array): Int16Array } }).down
    const processView = resampler.processView.bind(resampler)
    let resampled = 0
    resampler.processView = (pcm) => (resampled++, processView(pcm))
    const ours = input.map((f) => codec.encode(f).slice())
    const reference = input.map((f) => encodeG711(law, down.process(f)))
    codec.close()
    down.close()
    expect(ours.length).toBe(reference.length)
    // The 12-frame and 8-frame pauses each skip all but their first three frames.
    expect(resampled).toBe(input.length - (12 - 3) - (8 - 3))
    ours.forEach((bytes, i) => expect([i, [...bytes]]).toEqual([i, [...reference[i]!]]))
    // The pause really ends in the encoded silence code (mu-law 0xFF, A-law 0xD5).
    expect(new Set(ours.at(-1)!)).toEqual(new Set([law === 'ulaw' ? 0xff : 0xd5]))
  })
}
