import { beforeAll, describe, expect, test } from 'bun:test'
import { createResampler, OpusCodec, opusAvailable, PolyphaseResampler, rmsDb, speexAvailable, SpeexResampler, tone, toneLevelDb, type ResamplerEngine } from '../../../../src/realtime/media/codec/index.ts'

const engines: ResamplerEngine[] = speexAvailable() ? ['polyphase', 'speex'] : ['polyphase']
let engine: ResamplerEngine = 'polyphase'
const Resampler = function (inRate: number, outRate: number) {
  return createResampler(inRate, outRate, engine)
} as unknown as new (inRate: number, outRate: number) => ReturnType<typeof createResampler>

/** Feeds a tone through in 20 ms blocks and measures the steady-state level change in dB. */
function gainDb(freqHz: number, inRate: number, outRate: number): number {
  const r = new Resampler(inRate, outRate)
  const block = inRate / 50
  const input = tone(freqHz, inRate, inRate, 10000)
  const parts: Int16Array[] = []
  for (let i = 0; i < input.length; i += block) parts.push(r.process(input.subarray(i, i + block)))
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  expect(out.length).toBe(outRate)
  const skip = Math.floor(outRate / 10)
  return rmsDb(out, skip, out.length - skip) - rmsDb(input, inRate / 10, inRate - inRate / 10)
}

test('the Speex wasm resampler loads here (the media path uses it; the FIR is the fallback)', () => {
  expect(speexAvailable()).toBe(true)
  const r = new SpeexResampler(16000, 8000)
  expect(r.process(new Int16Array(320)).length).toBe(160)
  r.close()
  expect(() => r.process(new Int16Array(320))).toThrow('closed')
  expect(() => new PolyphaseResampler(8000, 16000).close()).not.toThrow()
})

describe.each(engines)('Resampler (%s)', (name) => {
  beforeAll(() => {
    engine = name
  })

  test('a 3 kHz tone through 16k->8k keeps its level within 1 dB', () => {
    expect(Math.abs(gainDb(3000, 16000, 8000))).toBeLessThan(1)
  })

  test('a 6 kHz tone through 16k->8k is attenuated by at least 40 dB', () => {
    expect(gainDb(6000, 16000, 8000)).toBeLessThan(-40)
  })

  test('16k->8k is flat to 3.4 kHz and at least 60 dB down from 4.8 kHz on', () => {
    expect(Math.abs(gainDb(3400, 16000, 8000))).toBeLessThan(0.5)
    expect(gainDb(5000, 16000, 8000)).toBeLessThan(-60)
    expect(gainDb(7000, 16000, 8000)).toBeLessThan(-60)
  })

  test('upsampling 8k->16k and 8k->48k keeps a 1 kHz tone and suppresses its image', () => {
    expect(Math.abs(gainDb(1000, 8000, 16000))).toBeLessThan(0.5)
    expect(Math.abs(gainDb(1000, 8000, 48000))).toBeLessThan(0.5)
    expect(Math.abs(gainDb(1000, 48000, 16000))).toBeLessThan(0.5)
    expect(Math.abs(gainDb(1000, 16000, 24000))).toBeLessThan(0.5)
    // 8k->16k: a 3 kHz tone's image sits at 5 kHz and must be gone.
    const up = new Resampler(8000, 16000).process(tone(3000, 8000, 8000, 10000))
    const wanted = toneLevelDb(up, 3000, 16000, 1600, 14400)
    const image = toneLevelDb(up, 5000, 16000, 1600, 14400)
    expect(wanted - image).toBeGreaterThan(50)
  })

  test('odd block sizes produce exactly the ratio of samples over time', () => {
    const r = new Resampler(16000, 24000)
    let total = 0
    for (const n of [7, 33, 160, 1, 99]) total += r.process(new Int16Array(n)).length
    expect(total).toBe((300 * 3) / 2)
  })

  test('rejects rates that are not positive integers', () => {
    expect(() => new Resampler(0, 8000)).toThrow(RangeError)
    expect(() => new Resampler(8000.5, 16000)).toThrow(RangeError)
  })
})

describe.if(opusAvailable())('Opus', () => {
  test('a 20 ms 48 kHz frame encodes and decodes back to a tone of similar level', () => {
    const codec = new OpusCodec(48000)
    const input = tone(440, 48000, 960 * 10, 8000)
    let last: Int16Array = new Int16Array(0)
    for (let i = 0; i < 10; i++) {
      const pkt = codec.encode(input.subarray(i * 960, (i + 1) * 960))
      expect(pkt.length).toBeGreaterThan(0)
      expect(pkt.length).toBeLessThan(400)
      last = codec.decode(pkt)
    }
    expect(last.length).toBe(960)
    expect(Math.abs(rmsDb(last) - rmsDb(input))).toBeLessThan(3)
  })

  test('a lost packet is concealed by libopus PLC: the tone goes on for the missing 20 ms', () => {
    const codec = new OpusCodec(16000)
    for (let i = 0; i < 10; i++) codec.decode(codec.encode(tone(440, 16000, 320, 8000, (i * 320 * 2 * Math.PI * 440) / 16000)))
    const plc = codec.conceal(320)
    expect(plc.length).toBe(320)
    expect(toneLevelDb(plc, 440, 16000)).toBeGreaterThan(-40)
    expect(toneLevelDb(plc, 440, 16000) - toneLevelDb(plc, 1500, 16000)).toBeGreaterThan(15)
  })
})
