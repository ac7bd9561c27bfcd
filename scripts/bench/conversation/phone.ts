// One far-end phone: calls over SIP, sends its caller's script as PCMU every 20 ms (line noise
// between turns), and notes every packet it sends and receives. It speaks when a caller would:
// after the agent's answer is over, or a set time into the agent's utterance (an interruption,
// a backchannel). Timing comes only from its own send and arrival times.
import { decodeG711, encodeG711 } from '../../../src/realtime/media/codec/index.ts'
import { FRAME, frameDbfs, lineNoise, VOICED_DBFS } from './audio.ts'
import { AgentEar } from './ear.ts'
import type { PhoneLog, StepLog } from './log.ts'
import type { CallerStep } from './script.ts'
import { SipUac } from './sip-uac.ts'

/** The agent's answer is over once it has been quiet this long (longer than its pauses between sentences). */
export const QUIET_MS = 1000
/** No answer this long after a turn: the caller goes on (the turn is counted lost). */
const NO_ANSWER_MS = 10_000
/** An answer still going after this long: the caller goes on anyway. */
const MAX_ANSWER_MS = 40_000

export interface PhoneOptions {
  id: string
  sipPort: number
  /** The number called, as the Request-URI user. */
  user: string
  steps: CallerStep[]
  /** Each step's audio as 20 ms frames at 8 kHz. */
  audio: Int16Array[][]
  deadlineMs: number
}

const absNow = () => performance.timeOrigin + performance.now()

function rtpPacket(seq: number, ssrc: number, payload: Uint8Array, marker: boolean): Uint8Array {
  const out = new Uint8Array(12 + payload.length)
  const v = new DataView(out.buffer)
  out[0] = 0x80
  out[1] = marker ? 0x80 : 0
  v.setUint16(2, seq & 0xffff)
  v.setUint32(4, (seq * FRAME) >>> 0)
  v.setUint32(8, ssrc)
  out.set(payload, 12)
  return out
}

/** The level of an RTP packet's PCMU audio; undefined for RTCP, other payloads and DTMF events. */
function levelOf(data: Uint8Array): number | undefined {
  if (data.length < 12 || data[0]! >> 6 !== 2 || (data[1]! & 0x7f) !== 0) return undefined
  let at = 12 + 4 * (data[0]! & 0x0f)
  if (data[0]! & 0x10) at += 4 + 4 * ((data[at + 2]! << 8) | data[at + 3]!)
  const payload = data.subarray(at, data[0]! & 0x20 ? data.length - data[data.length - 1]! : data.length)
  return payload.length ? frameDbfs(decodeG711('ulaw', payload)) : undefined
}

export async function runPhone(o: PhoneOptions): Promise<PhoneLog> {
  const log: PhoneLog = { id: o.id, ok: false, answeredAt: 0, rtpStartAt: 0, steps: [], rx: { at: [], db: [] }, hungUpBy: 'none', endedAt: 0 }
  const ear = new AgentEar()
  const rtp = await Bun.udpSocket({
    hostname: '127.0.0.1',
    port: 0,
    binaryType: 'uint8array',
    socket: {
      error() {},
      data(_s, data) {
        const at = absNow()
        const db = levelOf(data)
        if (db === undefined) return
        log.rx.at.push(Math.round(at * 10) / 10)
        log.rx.db.push(Math.max(-120, Math.round(db * 10) / 10))
        ear.hear(at, db)
      },
    },
  })
  const sip = await SipUac.open(o.sipPort, o.user, o.id)
  let finish!: () => void
  const finished = new Promise<void>((r) => (finish = r))
  sip.onBye = () => {
    log.hungUpBy = log.hungUpBy === 'none' ? 'agent' : log.hungUpBy
    finish()
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const sdp = `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=bench\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${rtp.port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=ptime:20\r\na=sendrecv\r\n`
    const answer = await sip.invite(sdp)
    log.answeredAt = absNow()
    const remotePort = Number(/m=audio (\d+)/.exec(answer)?.[1])
    const remoteHost = /c=IN IP4 (\S+)/.exec(answer)?.[1] ?? '127.0.0.1'
    if (!remotePort) throw new Error('the answer has no audio port')
    const ssrc = (Math.random() * 0xffffffff) >>> 0
    const noise = lineNoise(FRAME * 50, ssrc)
    let seq = 0
    let stepIdx = 0
    let frames: Int16Array[] | undefined
    let frameIdx = 0
    let current: StepLog | undefined
    /** When the caller's last turn ended (the agent's answer comes after it); at first, the answer to the INVITE. */
    let turnEnd = log.answeredAt
    let hangingUp = false
    const deadline = log.answeredAt + o.deadlineMs

    // the agent's reply is whatever it says after the caller's turn (an answer begun while the
    // caller was still talking included), over once it has been quiet for QUIET_MS
    const trigger = (step: CallerStep | undefined, now: number): StepLog['trigger'] | undefined => {
      const heard = ear.firstVoicedAfter(turnEnd)
      if (heard === undefined) return now - turnEnd >= NO_ANSWER_MS ? 'no_answer' : undefined
      if (now - heard >= MAX_ANSWER_MS) return 'timeout'
      if (step && step.start !== 'after_answer') return now >= heard + step.start.intoAgentMs ? 'into_agent' : undefined
      return now - ear.lastVoicedAt! >= QUIET_MS ? 'after_answer' : undefined
    }

    const tick = (now: number, lateMs: number): boolean => {
      if (!frames) {
        const step = o.steps[stepIdx]
        const why = trigger(step, now)
        if (!step && (why || now >= deadline)) return false
        if (step && why) {
          frames = o.audio[stepIdx]!
          frameIdx = 0
          current = { id: step.id, kind: step.kind, startAt: now, firstVoicedAt: 0, lastVoicedAt: 0, trigger: why, sendLateMaxMs: 0 }
          log.steps.push(current)
        }
      }
      const pcm = frames ? frames[frameIdx++]! : noise.subarray((seq % 50) * FRAME, ((seq % 50) + 1) * FRAME)
      rtp.send(rtpPacket(seq, ssrc, encodeG711('ulaw', pcm), seq === 0), remotePort, remoteHost)
      seq++
      if (frames && current) {
        current.sendLateMaxMs = Math.max(current.sendLateMaxMs, Math.round(lateMs))
        if (frameDbfs(pcm) > VOICED_DBFS) {
          current.firstVoicedAt ||= now
          current.lastVoicedAt = now
        }
        if (frameIdx >= frames.length) {
          if (current.kind === 'turn') turnEnd = current.lastVoicedAt || now
          frames = undefined
          current = undefined
          stepIdx++
        }
      }
      return now < deadline
    }

    const origin = performance.now()
    log.rtpStartAt = performance.timeOrigin + origin
    let k = 0
    const loop = () => {
      while (origin + k * 20 <= performance.now()) {
        if (!tick(absNow(), performance.now() - (origin + k * 20))) {
          hangingUp = true
          break
        }
        k++
      }
      if (hangingUp) return finish()
      timer = setTimeout(loop, Math.max(0, origin + k * 20 - performance.now()))
    }
    loop()
    await finished
    clearTimeout(timer)
    if (log.hungUpBy === 'none') {
      log.hungUpBy = 'caller'
      await sip.bye()
    }
    log.ok = stepIdx >= o.steps.length && absNow() < deadline
    if (!log.ok) log.error = stepIdx < o.steps.length ? `the call ended at step ${stepIdx} of ${o.steps.length}` : 'the call ran past its deadline'
  } catch (err) {
    log.error = (err as Error).message
  } finally {
    clearTimeout(timer)
    log.endedAt = absNow()
    sip.close()
    rtp.close()
  }
  return log
}
