// The far end of the media benchmark, in its own process: one UDP socket per call sending
// PCMU every 20 ms (one drift-free timer for all) and timing what comes back.
// Protocol on stdin/stdout, one JSON object per line: open -> ports, start, stop -> figures.
// With keys (media-calls.ts --srtp) each leg seals what it sends and opens what comes back,
// counting what does not open.
import { encodeG711, tone } from '../../src/realtime/media/codec/index.ts'
import { serializeRtp } from '../../src/realtime/media/rtp/index.ts'
import { SrtpInbound, SrtpOutbound, type SrtpSuite } from '../../src/realtime/srtp/index.ts'

interface LegKeys {
  suite: SrtpSuite
  sendKey: string
  receiveKey: string
}

interface Leg {
  socket: Bun.udp.Socket<'uint8array'>
  target: number
  seq: number
  received: number
  lastAt: number
  out?: SrtpOutbound
  in?: SrtpInbound
}

const legs: Leg[] = []
const gaps: number[] = []
const payload = encodeG711('ulaw', tone(800, 8000, 160, 6000))
let timer: ReturnType<typeof setTimeout> | undefined
let sent = 0
let refused = 0

async function open(targets: number[], keys: LegKeys[] | undefined) {
  for (const [i, target] of targets.entries()) {
    const k = keys?.[i]
    const leg: Leg = { socket: undefined as never, target, seq: 0, received: 0, lastAt: 0 }
    if (k) {
      leg.out = new SrtpOutbound(k.suite, k.sendKey)
      leg.in = new SrtpInbound(k.suite, k.receiveKey)
    }
    leg.socket = await Bun.udpSocket({
      hostname: '127.0.0.1',
      port: 0,
      binaryType: 'uint8array',
      socket: {
        error() {},
        data(_s, data) {
          if (data[1]! >= 192 && data[1]! <= 223) return
          if (leg.in && typeof leg.in.unprotectRtp(data, data) === 'string') {
            refused++
            return
          }
          const now = performance.now()
          if (leg.lastAt) gaps.push(Math.abs(now - leg.lastAt - 20))
          leg.lastAt = now
          leg.received++
        },
      },
    })
    legs.push(leg)
  }
  return legs.map((l) => l.socket.port)
}

// PEER_SPREAD=1: each leg sends at its own phase of the 20 ms period, as independent phones
// would; by default all legs send in one burst, the worst case for the receiving event loop.
const SPREAD = process.env.PEER_SPREAD === '1'
const STEP_MS = SPREAD ? 2 : 20

function start() {
  const origin = performance.now()
  let k = 0
  const tick = () => {
    while (origin + k * STEP_MS <= performance.now()) {
      const slot = k % (20 / STEP_MS)
      for (let i = 0; i < legs.length; i++) {
        if (SPREAD && i % (20 / STEP_MS) !== slot) continue
        const leg = legs[i]!
        const plain = serializeRtp({ marker: leg.seq === 0, payloadType: 0, sequenceNumber: leg.seq & 0xffff, timestamp: leg.seq * 160, ssrc: leg.target, csrcs: [], payload })
        const bytes = leg.out ? (leg.out.protectRtp(plain) as Uint8Array) : plain
        leg.seq++
        leg.socket.send(bytes, leg.target, '127.0.0.1')
        sent++
      }
      k++
    }
    timer = setTimeout(tick, Math.max(0, origin + k * STEP_MS - performance.now()))
  }
  tick()
}

function figures() {
  const sorted = gaps.sort((a, b) => a - b)
  const p = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0
  return { sent, received: legs.reduce((n, l) => n + l.received, 0), refused, gapDeviationP50Ms: p(0.5), gapDeviationP99Ms: p(0.99) }
}

const decoder = new TextDecoder()
let buffered = ''
for await (const chunk of Bun.stdin.stream()) {
  buffered += decoder.decode(chunk)
  let nl: number
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buffered.slice(0, nl)) as { cmd: string; targets?: number[]; keys?: LegKeys[] }
    buffered = buffered.slice(nl + 1)
    if (msg.cmd === 'open') console.log(JSON.stringify({ ports: await open(msg.targets!, msg.keys) }))
    else if (msg.cmd === 'start') start()
    else if (msg.cmd === 'reset') gaps.length = 0
    else if (msg.cmd === 'stop') {
      clearTimeout(timer)
      console.log(JSON.stringify(figures()))
      for (const l of legs) l.socket.close()
      process.exit(0)
    }
  }
}
