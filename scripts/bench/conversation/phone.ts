// One far-end phone over SIP: calls, sends its caller's script (caller.ts) as PCMU every 20 ms
// (line noise between turns), and notes every packet it sends and receives. Timing comes only
// from its own send and arrival times.
import { encodeG711 } from '../../../src/realtime/media/codec/index.ts'
import { absNow, judge, speakScript, type CallerRun } from './caller.ts'
import { FRAME, lineNoise } from './audio.ts'
import { AgentEar } from './ear.ts'
import type { PhoneLog } from './log.ts'
import type { CallerStep } from './script.ts'
import { rtpEar } from './rtp-ear.ts'
import { SipUac } from './sip-uac.ts'

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

/** Notes one received 20 ms of the agent's audio. */
export function heard(log: PhoneLog, ear: AgentEar, at: number, db: number): void {
  log.rx.at.push(Math.round(at * 10) / 10)
  log.rx.db.push(Math.max(-120, Math.round(db * 10) / 10))
  ear.hear(at, db)
}

export const newLog = (id: string): PhoneLog => ({ id, ok: false, answeredAt: 0, rtpStartAt: 0, steps: [], rx: { at: [], db: [] }, hungUpBy: 'none', endedAt: 0 })

export async function runPhone(o: PhoneOptions): Promise<PhoneLog> {
  const log = newLog(o.id)
  const ear = new AgentEar()
  const rtp = await rtpEar((at, db) => heard(log, ear, at, db))
  const sip = await SipUac.open(o.sipPort, o.user, o.id)
  let run: CallerRun | undefined
  let agentLeft = false
  sip.onBye = () => {
    agentLeft = true
    if (log.hungUpBy === 'none') log.hungUpBy = 'agent'
    run?.stop()
  }
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
    run = speakScript(o, log, ear, (f, first) => {
      const pcm = 'step' in f ? o.audio[f.step]![f.index]! : noise.subarray((f.noise % 50) * FRAME, ((f.noise % 50) + 1) * FRAME)
      rtp.send(rtpPacket(seq++, ssrc, encodeG711('ulaw', pcm), first), remotePort, remoteHost)
    })
    if (agentLeft) run.stop()
    await run.done
    if (log.hungUpBy === 'none') {
      log.hungUpBy = 'caller'
      await sip.bye()
    }
    judge(log, run, o.steps.length, o.deadlineMs)
  } catch (err) {
    run?.stop()
    log.error = (err as Error).message
  } finally {
    log.endedAt = absNow()
    sip.close()
    rtp.close()
  }
  return log
}
