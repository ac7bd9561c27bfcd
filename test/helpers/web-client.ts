// A browser stand-in for web calls: a werift peer that offers Opus, signals over the API with a
// key, speaks 16 kHz PCM in 20 ms Opus packets and keeps what the agent sent, decoded.
import { RtpHeader, RtpPacket } from 'werift'
import { OpusAudioCodec } from '../../src/realtime/media/call/index.ts'
import { gatheredOffer, loopbackPeer } from './loopback-peer.ts'

export interface WebCallClient {
  callId: string
  answerSdp: string
  /** Resolves when ICE and DTLS are up. */
  connected: Promise<void>
  /** The agent's audio so far, 16 kHz. */
  heard(): Int16Array
  /** The RTP timestamp (48 kHz) and marker of each packet the agent sent, in arrival order. */
  received(): { timestamp: number; marker: boolean }[]
  /** Queues 16 kHz PCM to send, 20 ms a packet on the packet clock. */
  say(pcm: Int16Array): void
  hangUp(): Promise<void>
  close(): Promise<void>
}

export async function startWebCall(
  baseUrl: string,
  key: string,
  agentId: string,
  body: Record<string, unknown> = {},
): Promise<WebCallClient> {
  const { pc, track, transceiver } = loopbackPeer()
  const offer = await gatheredOffer(pc)
  const res = await fetch(`${baseUrl}/api/agents/${agentId}/web-calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sdp: offer, ...body }),
  })
  const started = (await res.json()) as { callId: string; sdp: string }
  if (res.status !== 201) {
    await pc.close()
    throw new Error(`web call refused: ${res.status} ${JSON.stringify(started)}`)
  }
  const decoder = new OpusAudioCodec()
  const chunks: Int16Array[] = []
  const packets: { timestamp: number; marker: boolean }[] = []
  transceiver.onTrack.subscribe((t) =>
    t.onReceiveRtp.subscribe((rtp) => {
      packets.push({ timestamp: rtp.header.timestamp, marker: rtp.header.marker })
      chunks.push(decoder.decode(rtp.payload).slice())
    }),
  )
  await pc.setRemoteDescription({ type: 'answer', sdp: started.sdp })
  const connected = new Promise<void>((resolve, reject) =>
    pc.connectionStateChange.subscribe((s) => (s === 'connected' ? resolve() : s === 'failed' ? reject(new Error('ICE failed')) : undefined)),
  )
  const encoder = new OpusAudioCodec()
  const pt = Number(/a=rtpmap:(\d+) opus\/48000/i.exec(started.sdp)?.[1] ?? 111)
  const queue: Int16Array[] = []
  let seq = 1
  let ts = 0
  const silence = new Int16Array(320)
  const timer = setInterval(() => {
    const frame = queue.shift() ?? silence
    track.writeRtp(new RtpPacket(new RtpHeader({ payloadType: pt, sequenceNumber: seq++ & 0xffff, timestamp: (ts += 960) >>> 0 }), Buffer.from(encoder.encode(frame))))
  }, 20)
  const close = async () => {
    clearInterval(timer)
    await pc.close().catch(() => {})
  }
  return {
    callId: started.callId,
    answerSdp: started.sdp,
    connected,
    heard() {
      const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0))
      let at = 0
      for (const c of chunks) out.set(c, (at += c.length) - c.length)
      return out
    },
    received: () => packets,
    say(pcm) {
      for (let i = 0; i + 320 <= pcm.length; i += 320) queue.push(pcm.subarray(i, i + 320))
    },
    async hangUp() {
      await fetch(`${baseUrl}/api/agents/${agentId}/web-calls/${started.callId}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } })
      await close()
    },
    close,
  }
}
