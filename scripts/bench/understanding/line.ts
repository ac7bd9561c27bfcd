// A phone calling over SIP on 127.0.0.1: INVITE offering one G.711 codec (PCMU or PCMA), RTP
// every 20 ms from its own socket, dropping the packets the loss pattern says (their sequence
// numbers are skipped, as a network would lose them), and the agent's audio judged by level.
import { encodeG711 } from '../../../src/realtime/media/codec/index.ts'
import { absNow } from '../conversation/caller.ts'
import { AgentEar } from '../conversation/ear.ts'
import { rtpEar } from '../conversation/rtp-ear.ts'
import { SipUac } from '../conversation/sip-uac.ts'
import { hear, newTurnLog, speakTurn, type Start, type TurnLog, type TurnRun } from './turn.ts'

export interface LineCall {
  /** The SIP From user: the record's `from`, by which the bench finds it. */
  from: string
  sipPort: number
  /** The number called (Request-URI user). */
  user: string
  codec: 'pcmu' | 'pcma'
  /** 8 kHz frames of the caller's audio and which are loud; line noise for the slots between. */
  frames: Int16Array[]
  loud: boolean[]
  noise: Int16Array[]
  /** Per RTP packet: dropped or not (wraps around). */
  drop?: boolean[]
  start: Start
}

const PT = { pcmu: 0, pcma: 8 } as const
const LAW = { pcmu: 'ulaw', pcma: 'alaw' } as const

function rtp(seq: number, ssrc: number, pt: number, payload: Uint8Array, marker: boolean): Uint8Array {
  const out = new Uint8Array(12 + payload.length)
  const v = new DataView(out.buffer)
  out[0] = 0x80
  out[1] = (marker ? 0x80 : 0) | pt
  v.setUint16(2, seq & 0xffff)
  v.setUint32(4, (seq * 160) >>> 0)
  v.setUint32(8, ssrc)
  out.set(payload, 12)
  return out
}

export async function callLine(c: LineCall): Promise<TurnLog & { error?: string }> {
  const log: TurnLog & { error?: string } = newTurnLog()
  const ear = new AgentEar()
  const socket = await rtpEar((at, db) => hear(log, ear, at, db))
  const sip = await SipUac.open(c.sipPort, c.user, c.from)
  let turn: TurnRun | undefined
  let agentLeft = false
  sip.onBye = () => {
    agentLeft = true
    turn?.stop()
  }
  try {
    const pt = PT[c.codec]
    const sdp = `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=understanding\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${socket.port} RTP/AVP ${pt}\r\na=rtpmap:${pt} ${c.codec.toUpperCase()}/8000\r\na=ptime:20\r\na=sendrecv\r\n`
    const answer = await sip.invite(sdp)
    log.answeredAt = absNow()
    const port = Number(/m=audio (\d+)/.exec(answer)?.[1])
    const host = /c=IN IP4 (\S+)/.exec(answer)?.[1] ?? '127.0.0.1'
    if (!port) throw new Error('the answer has no audio port')
    const ssrc = (Math.random() * 0xffffffff) >>> 0
    turn = speakTurn(
      {
        frames: c.frames,
        loud: c.loud,
        start: c.start,
        send: (frame, seq) => {
          if (c.drop?.[seq % c.drop.length]) return
          const pcm = frame ?? c.noise[seq % c.noise.length]!
          socket.send(rtp(seq, ssrc, pt, encodeG711(LAW[c.codec], pcm), seq === 0), port, host)
        },
      },
      ear,
      log,
    )
    if (agentLeft) turn.stop()
    await turn.done
    if (!agentLeft) await sip.bye()
  } catch (err) {
    turn?.stop()
    log.error = (err as Error).message
    log.endedAt = absNow()
  } finally {
    sip.close()
    socket.close()
  }
  return log
}
