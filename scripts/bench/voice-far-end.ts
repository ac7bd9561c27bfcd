// The far side of the voice-session benchmark, in its own process so that its CPU is not
// charged to the platform: the zero-delay fake OpenAI (the LLM) and, for the RTP mode, one UDP
// phone per call that talks (PCMU every 20 ms) and notes when each agent talkspurt arrives.
// Protocol on stdin/stdout, one JSON object per line:
//   (on start) -> { url }
//   { cmd: 'open', targets, leadMs } -> { ports }      one phone per target port
//   { cmd: 'start' }                                   phones start talking
//   { cmd: 'stop' } -> { talkspurts }                  absolute arrival ms of each marked packet, per phone
import { encodeG711 } from '../../src/realtime/media/codec/index.ts'
import { serializeRtp } from '../../src/realtime/media/rtp/index.ts'
import { resample } from '../../src/realtime/voice/resample.ts'
import { startFakeOpenAi } from '../../test/fakes/openai.ts'
import { BENCH_REPLY, callerScript } from './voice-script.ts'

const fake = startFakeOpenAi()
for (let i = 0; i < 100_000; i++) fake.chat.push({ text: BENCH_REPLY })
const absNow = () => performance.timeOrigin + performance.now()

interface Phone {
  socket: Bun.udp.Socket<'uint8array'>
  target: number
  packets: Uint8Array[]
  seq: number
  seenFirst: boolean
  talkspurts: number[]
}

const phones: Phone[] = []
let timer: ReturnType<typeof setTimeout> | undefined
const SILENT = encodeG711('ulaw', new Int16Array(160))

async function open(targets: number[], leadMs: number[]): Promise<number[]> {
  const script = callerScript()
  for (let i = 0; i < targets.length; i++) {
    const pcm8k = resample(script(leadMs[i]!).samples, 16000, 8000)
    const packets: Uint8Array[] = []
    for (let at = 0; at + 160 <= pcm8k.length; at += 160) packets.push(encodeG711('ulaw', pcm8k.subarray(at, at + 160)))
    const phone: Phone = { socket: undefined as never, target: targets[i]!, packets, seq: 0, seenFirst: false, talkspurts: [] }
    phone.socket = await Bun.udpSocket({
      hostname: '127.0.0.1',
      port: 0,
      binaryType: 'uint8array',
      socket: {
        error() {},
        data(_s, data) {
          const at = absNow()
          if (data.length < 12 || (data[1]! >= 192 && data[1]! <= 223)) return // RTCP
          if (!phone.seenFirst) {
            phone.seenFirst = true // the stream's first packet is marked too; it is not a reply
            return
          }
          if (data[1]! & 0x80) phone.talkspurts.push(at)
        },
      },
    })
    phones.push(phone)
  }
  return phones.map((p) => p.socket.port)
}

function start(): void {
  const origin = performance.now()
  let k = 0
  const tick = () => {
    while (origin + k * 20 <= performance.now()) {
      for (const p of phones) {
        const payload = p.packets[p.seq] ?? SILENT
        p.socket.send(serializeRtp({ marker: p.seq === 0, payloadType: 0, sequenceNumber: p.seq & 0xffff, timestamp: p.seq * 160, ssrc: p.target, csrcs: [], payload }), p.target, '127.0.0.1')
        p.seq++
      }
      k++
    }
    timer = setTimeout(tick, Math.max(0, origin + k * 20 - performance.now()))
  }
  tick()
}

console.log(JSON.stringify({ url: fake.url }))
const decoder = new TextDecoder()
let buffered = ''
for await (const chunk of Bun.stdin.stream()) {
  buffered += decoder.decode(chunk)
  let nl: number
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buffered.slice(0, nl)) as { cmd: string; targets?: number[]; leadMs?: number[] }
    buffered = buffered.slice(nl + 1)
    if (msg.cmd === 'open') console.log(JSON.stringify({ ports: await open(msg.targets!, msg.leadMs!) }))
    else if (msg.cmd === 'start') start()
    else if (msg.cmd === 'stop') {
      clearTimeout(timer)
      console.log(JSON.stringify({ talkspurts: phones.map((p) => p.talkspurts) }))
      for (const p of phones) p.socket.close()
      phones.length = 0
    } else if (msg.cmd === 'exit') {
      fake.stop()
      process.exit(0)
    }
  }
}
