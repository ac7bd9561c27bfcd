// One run of the WebRTC stacks benchmark (scripts/bench/webrtc-stacks.ts): N peer pairs of one
// stack in this process, on 127.0.0.1 only, each with one sendrecv Opus audio track. Both ends of
// a pair send 50 packets/s (20 ms) over DTLS-SRTP as the stack does it. Prints one line
// `RESULT {json}`: connect times, packets sent and received, and CPU over the steady window.
//   bun scripts/bench/webrtc-stacks/child.ts <werift|node-datachannel|wrtc|idle> <N> <T seconds>
// node-datachannel and @roamhq/wrtc are loaded from $WEBRTC_STACKS_DIR/node_modules (not the repo).
// WARMUP_MS (default 1000): media runs this long before the CPU window opens.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { percentile } from '../stats.ts'

const [stack = '', nArg = '1', tArg = '10'] = process.argv.slice(2)
const N = Number(nArg)
const T = Number(tArg)
const WARMUP_MS = Number(process.env.WARMUP_MS ?? 1000)
const PT = 111 // Opus
const PAYLOAD = new Uint8Array(80).fill(0x5a) // ~ Opus at 32 kbit/s in 20 ms
const dir = process.env.WEBRTC_STACKS_DIR ?? '/tmp/wt'
const load = (name: string): any => createRequire(join(dir, 'package.json'))(name)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A connected pair: `send` sends one 20 ms packet (or two 10 ms frames) each way. */
interface Pair {
  send(): void
  /** Packets sent and received, both directions added. */
  counts(): Promise<{ sent: number; received: number }>
  close(): void
}

/** Only UDP host candidates on 127.0.0.1 are kept, so that nothing is ever sent elsewhere. */
function loopbackOnly(sdp: string): string {
  const lines = sdp.split('\r\n').filter((l) => !l.startsWith('a=candidate:') || / udp \d+ 127\.0\.0\.1 \d+ typ host/i.test(l))
  if (!lines.some((l) => l.startsWith('a=candidate:'))) throw new Error('no 127.0.0.1 UDP candidate in the SDP')
  return lines.join('\r\n')
}

function rtp(seq: number, ssrc: number): Buffer {
  const p = Buffer.alloc(12 + PAYLOAD.length)
  p[0] = 0x80
  p[1] = PT
  p.writeUInt16BE(seq & 0xffff, 2)
  p.writeUInt32BE((seq * 960) >>> 0, 4)
  p.writeUInt32BE(ssrc, 8)
  p.set(PAYLOAD, 12)
  return p
}

async function weriftPair(): Promise<Pair> {
  const { RTCPeerConnection, RTCRtpCodecParameters, RtpPacket } = await import('werift')
  const opus = () => new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, payloadType: PT })
  const opts = { iceUseIpv4: false, iceUseIpv6: false, iceAdditionalHostAddresses: ['127.0.0.1'], codecs: { audio: [opus()], video: [] } }
  const a = new RTCPeerConnection(opts)
  const b = new RTCPeerConnection(opts)
  let received = 0
  let sent = 0
  const gathered = (pc: InstanceType<typeof RTCPeerConnection>) => new Promise<void>((r) => (pc.iceGatheringState === 'complete' ? r() : pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && r())))
  const count = (pc: InstanceType<typeof RTCPeerConnection>) => pc.onTrack.subscribe((t) => t.onReceiveRtp.subscribe(() => received++))
  count(a)
  count(b)
  const ta = a.addTransceiver('audio', { direction: 'sendrecv' })
  const connected = new Promise<void>((r) => a.connectionStateChange.subscribe((s) => s === 'connected' && r()))
  await a.setLocalDescription(await a.createOffer())
  await gathered(a)
  await b.setRemoteDescription({ type: 'offer', sdp: loopbackOnly(a.localDescription!.sdp) })
  const tb = b.getTransceivers()[0]!
  tb.setDirection('sendrecv')
  await b.setLocalDescription(await b.createAnswer())
  await gathered(b)
  await a.setRemoteDescription({ type: 'answer', sdp: loopbackOnly(b.localDescription!.sdp) })
  await connected
  let seq = 0
  return {
    send() {
      seq++
      void ta.sender.sendRtp(RtpPacket.deSerialize(rtp(seq, 1)))
      void tb.sender.sendRtp(RtpPacket.deSerialize(rtp(seq, 2)))
      sent += 2
    },
    counts: async () => ({ sent, received }),
    close: () => void (a.close(), b.close()),
  }
}

async function datachannelPair(): Promise<Pair> {
  const ndc = load('node-datachannel')
  const config = { iceServers: [], bindAddress: '127.0.0.1', enableIceTcp: false }
  const a = new ndc.PeerConnection('a', config)
  const b = new ndc.PeerConnection('b', config)
  let received = 0
  let sent = 0
  const gathered = (pc: any) => new Promise<void>((r) => (pc.gatheringState() === 'complete' ? r() : pc.onGatheringStateChange((s: string) => s === 'complete' && r())))
  const media = (track: any) => {
    track.setMediaHandler(new ndc.RtcpReceivingSession()) // receiver reports, as the other stacks send
    track.onMessage((m: Buffer) => (m[1]! & 0x7f) === PT && received++)
  }
  let tb: any
  b.onTrack((t: any) => media((tb = t)))
  const audio = new ndc.Audio('0', 'SendRecv')
  audio.addOpusCodec(PT)
  audio.addSSRC(1, 'a')
  const ta = a.addTrack(audio)
  media(ta)
  const open = new Promise<void>((r) => ta.onOpen(r))
  a.setLocalDescription()
  await gathered(a)
  b.setRemoteDescription(loopbackOnly(a.localDescription().sdp), 'offer')
  await gathered(b)
  a.setRemoteDescription(loopbackOnly(b.localDescription().sdp), 'answer')
  await open
  let seq = 0
  return {
    send() {
      seq++
      if (ta.sendMessageBinary(rtp(seq, 1))) sent++
      if (tb?.isOpen() && tb.sendMessageBinary(rtp(seq, 2))) sent++
    },
    counts: async () => ({ sent, received }),
    close: () => void (a.close(), b.close()),
  }
}

// 10 ms of a 400 Hz tone at 48 kHz, so that the Opus encoder has something to code.
const TONE = Int16Array.from({ length: 480 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 400 * i) / 48000)))

async function wrtcPair(): Promise<Pair> {
  const { RTCPeerConnection, nonstandard } = load('@roamhq/wrtc')
  const a = new RTCPeerConnection({ iceServers: [] })
  const b = new RTCPeerConnection({ iceServers: [] })
  const sources = [new nonstandard.RTCAudioSource(), new nonstandard.RTCAudioSource()]
  const sinks: any[] = []
  for (const pc of [a, b]) pc.ontrack = (e: any) => sinks.push(Object.assign(new nonstandard.RTCAudioSink(e.track), { ondata: () => {} }))
  const gathered = (pc: any) => new Promise<void>((r) => { const check = () => pc.iceGatheringState === 'complete' && r(); pc.onicegatheringstatechange = check; check() })
  a.addTransceiver(sources[0].createTrack(), { direction: 'sendrecv' })
  const connected = new Promise<void>((r) => (a.onconnectionstatechange = () => a.connectionState === 'connected' && r()))
  await a.setLocalDescription(await a.createOffer())
  await gathered(a)
  await b.setRemoteDescription({ type: 'offer', sdp: loopbackOnly(a.localDescription.sdp) })
  b.addTrack(sources[1].createTrack()) // takes the transceiver the offer made, now sendrecv
  await b.setLocalDescription(await b.createAnswer())
  await gathered(b)
  await a.setRemoteDescription({ type: 'answer', sdp: loopbackOnly(b.localDescription.sdp) })
  await connected
  const frame = { samples: TONE, sampleRate: 48000, bitsPerSample: 16, channelCount: 1, numberOfFrames: 480 }
  const stat = async (pc: any, type: string, key: string) => {
    let n = 0
    ;(await pc.getStats()).forEach((s: any) => s.type === type && s.kind === 'audio' && (n += s[key] ?? 0))
    return n
  }
  return {
    send() {
      for (const s of sources) s.onData(frame), s.onData(frame) // two 10 ms frames: one 20 ms Opus packet
    },
    counts: async () => ({
      sent: (await stat(a, 'outbound-rtp', 'packetsSent')) + (await stat(b, 'outbound-rtp', 'packetsSent')),
      received: (await stat(a, 'inbound-rtp', 'packetsReceived')) + (await stat(b, 'inbound-rtp', 'packetsReceived')),
    }),
    close: () => { for (const s of sinks) s.stop(); a.close(); b.close() },
  }
}

// `idle`: no peers, the same clock: the floor of a process that only runs the benchmark.
const idlePair = async (): Promise<Pair> => ({ send() {}, counts: async () => ({ sent: 0, received: 0 }), close() {} })
const makers: Record<string, () => Promise<Pair>> = { werift: weriftPair, 'node-datachannel': datachannelPair, wrtc: wrtcPair, idle: idlePair }
const make = makers[stack]
if (!make || !(N > 0) || !(T > 0)) throw new Error('usage: child.ts <werift|node-datachannel|wrtc|idle> <N> <T>')

// Pairs are set up one after another; each connect time runs from its first call to connected.
const pairs: Pair[] = []
const connectMs: number[] = []
for (let i = 0; i < N; i++) {
  const t0 = performance.now()
  pairs.push(await Promise.race([make(), sleep(15_000).then(() => Promise.reject(new Error(`pair ${i} did not connect in 15 s`)))]))
  connectMs.push(performance.now() - t0)
}

// One clock for all pairs: every 20 ms tick sends one packet each way on every pair; a late
// timer catches up so that the rate stays 50 packets/s.
const start = performance.now()
let ticks = 0
let maxLateMs = 0
const timer = setInterval(() => {
  const due = Math.floor((performance.now() - start) / 20)
  if (ticks < due - 1) maxLateMs = Math.max(maxLateMs, (due - ticks - 1) * 20)
  for (; ticks < due; ticks++) for (const p of pairs) p.send()
}, 5)
await sleep(WARMUP_MS)
const cpu0 = process.cpuUsage()
const w0 = performance.now()
await sleep(T * 1000)
const cpu = process.cpuUsage(cpu0)
const windowS = (performance.now() - w0) / 1000
clearInterval(timer)
await sleep(500) // packets in flight
let sent = 0
let received = 0
for (const p of pairs) {
  const c = await p.counts()
  sent += c.sent
  received += c.received
}
const cpuMs = (cpu.user + cpu.system) / 1000
console.log('RESULT ' + JSON.stringify({
  stack, runtime: typeof Bun === 'undefined' ? `node ${process.version}` : `bun ${Bun.version}`, N, T: windowS,
  cpuMsPerPairSecond: cpuMs / N / windowS, cpuPercent: (100 * cpuMs) / 1000 / windowS,
  connectP50: percentile(connectMs, 50), connectMax: Math.max(...connectMs),
  sent, received, maxLateMs, rssMb: process.memoryUsage().rss / 2 ** 20,
}))
for (const p of pairs) p.close()
await sleep(200)
process.exit(0)
