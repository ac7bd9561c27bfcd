// Our polyphase FIR against the Speex resampler (SpeexDSP compiled to wasm, SIMD build) in the
// same run: speed per 20 ms frame (copies in and out of wasm memory included) and the response
// that matters on a phone line. The media path uses Speex quality 5, the FIR as fallback.
//   bun run scripts/bench/media-resampler.ts
import { PolyphaseResampler, rmsDb, SpeexResampler, tone } from '../../src/realtime/media/codec/index.ts'

type Proc = { process(x: Int16Array): Int16Array }
const makers: [string, (i: number, o: number) => Proc][] = [
  ['ours (FIR)', (i, o) => new PolyphaseResampler(i, o)],
  ['speex q3 (VoIP)', (i, o) => new SpeexResampler(i, o, 3)],
  ['speex q5 (used)', (i, o) => new SpeexResampler(i, o, 5)],
]

function gain(make: () => Proc, hz: number, inRate: number, outRate: number): number {
  const r = make()
  const x = tone(hz, inRate, inRate, 10000)
  const parts: Int16Array[] = []
  for (let i = 0; i < x.length; i += inRate / 50) parts.push(r.process(x.subarray(i, i + inRate / 50)))
  const y = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) y.set(p, (o += p.length) - p.length)
  if (y.length === 0) return NaN
  return rmsDb(y, Math.floor(y.length / 5), Math.floor((y.length * 4) / 5)) - rmsDb(x, inRate / 5, (inRate * 4) / 5)
}
// An output that rounds to all zeros sits below 16-bit resolution: about 86 dB under this tone.
const fmt = (db: number) => (Number.isNaN(db) ? 'n/a' : db < -86 ? '<-86' : db.toFixed(1))

function speed(make: () => Proc, inRate: number, frames: number): number {
  const r = make()
  const frame = tone(1000, inRate, inRate / 50, 8000)
  for (let i = 0; i < 2000; i++) r.process(frame)
  const t0 = performance.now()
  for (let i = 0; i < frames; i++) r.process(frame)
  return ((performance.now() - t0) * 1000) / frames
}

console.log('resampler    direction  us/20ms frame  3.0k dB  3.4k dB  4.4k dB  5.0k dB  6.0k dB')
const results: Record<string, number> = {}
// 8k->16k: a call's audio to the recognisers; 16k->8k and 24k->8k: speech (flite, OpenAI, ElevenLabs) to a G.711 call
for (const [inRate, outRate] of [[8000, 16000], [16000, 8000], [24000, 8000], [48000, 16000]] as const) {
  for (const [name, make] of makers) {
    const us = speed(() => make(inRate, outRate), inRate, 20000)
    results[`${name} ${inRate}`] = us
    const g = (hz: number) => (hz < inRate / 2 ? fmt(gain(() => make(inRate, outRate), hz, inRate, outRate)) : '-')
    console.log(`${name.padEnd(16)} ${`${inRate / 1000}k->${outRate / 1000}k`.padEnd(9)} ${us.toFixed(2).padStart(9)} ${[3000, 3400, 4400, 5000, 6000].map((hz) => g(hz).padStart(8)).join(' ')}`)
  }
}
for (const r of [8000, 16000, 24000, 48000]) console.log(`FIR speed relative to Speex q5 (>1 = FIR faster) at ${r / 1000} kHz input: ${(results[`speex q5 (used) ${r}`]! / results[`ours (FIR) ${r}`]!).toFixed(2)}x`)
