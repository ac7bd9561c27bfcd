// Our RTP packet codec against werift-rtp's (the DESIGN default) on the per-packet hot path:
// parse + serialize one 172-byte PCMU packet. werift-rtp is not a dependency; to compare, run
//   npm install --no-save werift-rtp@0.8.9 && bun run scripts/bench/media-rtp-packet.ts
import { parseRtp, serializeRtp } from '../../src/realtime/media/rtp/index.ts'

const bytes = new Uint8Array(172)
bytes[0] = 0x80
bytes.fill(0xff, 12)
const out = new Uint8Array(1500)
const N = 500_000

function time(fn: () => void): number {
  for (let i = 0; i < 50_000; i++) fn()
  const t0 = performance.now()
  for (let i = 0; i < N; i++) fn()
  return ((performance.now() - t0) * 1000) / N
}

const ours = time(() => serializeRtp(parseRtp(bytes), out))
console.log(`ours:       ${ours.toFixed(2)} us per parse + serialize`)
try {
  const name = 'werift-rtp'
  const { RtpPacket } = (await import(name)) as { RtpPacket: { deSerialize(b: Buffer): { serialize(): Buffer } } }
  const buf = Buffer.from(bytes)
  const theirs = time(() => RtpPacket.deSerialize(buf).serialize())
  const same = Buffer.compare(RtpPacket.deSerialize(buf).serialize(), Buffer.from(serializeRtp(parseRtp(bytes)))) === 0
  console.log(`werift-rtp: ${theirs.toFixed(2)} us per parse + serialize (same bytes: ${same})`)
  console.log(`ours is ${(theirs / ours).toFixed(1)}x faster`)
} catch {
  console.log('werift-rtp is not installed; see the header of this file to compare')
}
