// A caller over the media-stream WebSocket with format=pcm16: 16 kHz 16-bit PCM both ways in
// binary frames of 20 ms (docs/media-stream.md), the one path into a call that carries 16 kHz
// PCM. The caller sends a frame every 20 ms on its own clock, as a phone would, and judges the
// agent's frames by level on arrival.
import { absNow } from '../conversation/caller.ts'
import { frameDbfs } from '../conversation/audio.ts'
import { AgentEar } from '../conversation/ear.ts'
import { hear, newTurnLog, speakTurn, type Start, type TurnLog, type TurnRun } from './turn.ts'

export interface StreamCall {
  url: string
  key: string
  agentId: string
  /** 16 kHz frames and which are loud; line noise for the slots between. */
  frames: Int16Array[]
  loud: boolean[]
  noise: Int16Array[]
  start: Start
}

const CONNECT_MS = 15_000

export async function callStream(c: StreamCall): Promise<TurnLog & { error?: string; callId?: string }> {
  const log: TurnLog & { error?: string; callId?: string } = newTurnLog()
  const ear = new AgentEar()
  const ws = new WebSocket(`${c.url.replace(/^http/, 'ws')}/api/agents/${c.agentId}/media-stream?format=pcm16`, { headers: { authorization: `Bearer ${c.key}` } } as never)
  ws.binaryType = 'arraybuffer'
  let turn: TurnRun | undefined
  let agentLeft = false
  const closed = new Promise<void>((resolve) => ws.addEventListener('close', () => resolve()))
  const started = new Promise<void>((resolve, reject) => {
    const limit = setTimeout(() => reject(new Error(`no start message in ${CONNECT_MS / 1000} s`)), CONNECT_MS)
    ws.addEventListener('message', (e) => {
      if (typeof e.data !== 'string') {
        const pcm = new Int16Array(e.data as ArrayBuffer)
        if (pcm.length) hear(log, ear, absNow(), frameDbfs(pcm))
        return
      }
      const msg = JSON.parse(e.data)
      if (msg.event === 'start') {
        clearTimeout(limit)
        log.callId = msg.start.callSid
        resolve()
      }
      if (msg.event === 'stop') {
        agentLeft = true
        turn?.stop()
      }
    })
    ws.addEventListener('close', () => (clearTimeout(limit), reject(new Error('the socket closed before the call started'))))
  })
  try {
    await started
    log.answeredAt = absNow()
    turn = speakTurn(
      {
        frames: c.frames,
        loud: c.loud,
        start: c.start,
        send: (frame, seq) => {
          if (ws.readyState !== WebSocket.OPEN) return
          const pcm = frame ?? c.noise[seq % c.noise.length]!
          ws.send(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength))
        },
      },
      ear,
      log,
    )
    if (agentLeft) turn.stop()
    await turn.done
    if (!agentLeft && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ event: 'stop' }))
    await Promise.race([closed, Bun.sleep(5000)]) // the server closes with 1000 once the call has ended
  } catch (err) {
    turn?.stop()
    log.error = (err as Error).message
    log.endedAt = absNow()
  } finally {
    if (ws.readyState === WebSocket.OPEN) ws.close()
  }
  return log
}
