// The far end of the media benchmark, in its own process: one UDP socket per call sending
// PCMU every 20 ms (one drift-free timer for all) and timing what comes back.
// Protocol on stdin/stdout, one JSON object per line: open -> ports, start, stop -> figures.
// With keys (media-calls.ts --srtp) each leg seals what it sends and opens what comes back,
// counting what does not open. `open` with `seconds` builds that many seconds of each leg's packets
// before the start, sealed when keyed, and what comes back is opened at `stop`, in arrival order:
// far ends on other machines take no core from the calls, and this one then costs the same with
// SRTP as without while the calls are measured.
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
  /** Packets built before the start, sent in turn; live-built once they run out. */
  ready: Uint8Array[]
  next: number
  /** Keyed packets as they came, opened at `stop`. */
  inbox: Uint8Array[]
}

const legs: Leg[] = []
const gaps: number[] = []
const payload = encodeG711('ulaw', tone(800, 8000, 160, 6000))
let timer: ReturnType<typeof setTimeout> | undefined
let sent = 0
/** CPU use from `reset` to `stop`: what the far ends took from the machine's cores. */
let cpuFrom = process.cpuUsage()
let wallFrom = performance.now()

function build(leg: Leg): Uint8Array {
  const plain = serializeRtp({ marker: leg.seq === 0, payloadType: 0, sequenceNumber: leg.seq & 0xffff, timestamp: leg.seq * 160, ssrc: leg.target, csrcs: [], payload })
  leg.seq++
  return leg.out ? (leg.out.protectRtp(plain) as Uint8Array) : plain
}

async function open(targets: number[], keys: LegKeys[] | undefined, seconds = 0) {
  for (const [i, target] of targets.entries()) {
    const k = keys?.[i]
    const leg: Leg = { socket: undefined as never, target, seq: 0, received: 0, lastAt: 0, ready: [], next: 0, inbox: [] }
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
          if (leg.in) leg.inbox.push(data) // each datagram is its own buffer, kept as it came
          const now = performance.now()
          if (leg.lastAt) gaps.push(Math.abs(now - leg.lastAt - 20))
          leg.lastAt = now
          leg.received++
        },
      },
    })
    for (let n = 0; n < seconds * 50; n++) leg.ready.push(build(leg))
    legs.push(leg)
  }
  return legs.map((l) => l.socket.port)
}

/** Opens what the keyed legs received, in arrival order; returns how many did not open. */
function check(): number {
  let bad = 0
  for (const leg of legs) {
    for (const data of leg.inbox) if (typeof leg.in!.unprotectRtp(data, data) === 'string') bad++
  }
  return bad
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
        const bytes = leg.next < leg.ready.length ? leg.ready[leg.next++]! : build(leg)
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
  const cpu = process.cpuUsage(cpuFrom)
  const cpuPct = ((cpu.user + cpu.system) / 1000 / (performance.now() - wallFrom)) * 100
  return { sent, received: legs.reduce((n, l) => n + l.received, 0), gapDeviationP50Ms: p(0.5), gapDeviationP99Ms: p(0.99), cpuPct }
}

const decoder = new TextDecoder()
let buffered = ''
for await (const chunk of Bun.stdin.stream()) {
  buffered += decoder.decode(chunk)
  let nl: number
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buffered.slice(0, nl)) as { cmd: string; targets?: number[]; keys?: LegKeys[]; seconds?: number }
    buffered = buffered.slice(nl + 1)
    if (msg.cmd === 'open') console.log(JSON.stringify({ ports: await open(msg.targets!, msg.keys, msg.seconds) }))
    else if (msg.cmd === 'start') start()
    else if (msg.cmd === 'reset') {
      gaps.length = 0
      cpuFrom = process.cpuUsage()
      wallFrom = performance.now()
    }
    else if (msg.cmd === 'stop') {
      clearTimeout(timer)
      const f = figures() // before the check: its work is not the window's
      const refused = check()
      console.log(JSON.stringify({ ...f, refused, received: f.received - refused }))
      for (const l of legs) l.socket.close()
      process.exit(0)
    }
  }
}
