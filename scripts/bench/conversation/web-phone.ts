// One far-end web caller: a werift peer, as a browser would be, that offers Opus, signals with
// the appliance's HTTP API as the console does (POST /api/agents/{id}/web-calls, the live view
// every 500 ms, DELETE to hang up), and speaks the same script as the SIP phones (caller.ts) in
// 20 ms Opus packets; the agent's Opus is decoded to judge its level, so the same AgentEar and
// PhoneLog give the same figures. The caller's Opus is encoded once for all calls (opusAudio),
// so the phones' process does not spend its CPU on it.
import { RtpHeader, RtpPacket } from '../../../src/realtime/webrtc/werift.ts'
import { OpusCodec } from '../../../src/realtime/media/codec/index.ts'
import { resample } from '../../../src/realtime/voice/resample.ts'
import { absNow, judge, speakScript, type CallerRun } from './caller.ts'
import { FRAME, frameDbfs, lineNoise, RATE } from './audio.ts'
import { AgentEar } from './ear.ts'
import type { PhoneLog } from './log.ts'
import { heard, newLog } from './phone.ts'
import type { CallerStep } from './script.ts'
import { gatheredOffer, loopbackPeer } from '../../../test/helpers/loopback-peer.ts'

/** ICE and DTLS up within this, or the call failed (the appliance's own limit is WEB_CALL_CONNECT_MS, 15 s). */
const CONNECT_MS = 20_000
/**
 * The console's browser call reads the live view this often, and learns from it that the agent
 * hung up: werift closes a peer without a DTLS close_notify ("todo impl send alert" in its
 * RTCDtlsTransport.stop), so nothing on the wire says so. BENCH_WEB_POLL_MS=0 leaves it out.
 */
const POLL_MS = Number(process.env.BENCH_WEB_POLL_MS ?? 500)
const OPUS_RATE = 16000
const OPUS_FRAME = (OPUS_RATE / 1000) * 20

export interface WebTarget {
  /** The appliance's HTTP base URL, its admin key and the agent called. */
  url: string
  key: string
  agentId: string
}

/** The caller's audio as 20 ms Opus packets: each step's, and 50 frames of line noise. */
export interface OpusAudio {
  steps: Uint8Array[][]
  noise: Uint8Array[]
}

/** 8 kHz frames as one Opus stream at 16 kHz (wideband, as a browser's microphone would be carried). */
function opusOf(frames: readonly Int16Array[]): Uint8Array[] {
  const pcm8k = new Int16Array(frames.length * FRAME)
  frames.forEach((f, i) => pcm8k.set(f, i * FRAME))
  const pcm = resample(pcm8k, RATE, OPUS_RATE)
  const enc = new OpusCodec(OPUS_RATE)
  const out: Uint8Array[] = []
  for (let i = 0; i < frames.length; i++) {
    const frame = new Int16Array(OPUS_FRAME)
    frame.set(pcm.subarray(i * OPUS_FRAME, (i + 1) * OPUS_FRAME))
    out.push(enc.encode(frame))
  }
  return out
}

export function opusAudio(audio: Int16Array[][]): OpusAudio {
  const noise = lineNoise(FRAME * 50, 1)
  return { steps: audio.map(opusOf), noise: opusOf(Array.from({ length: 50 }, (_, i) => noise.subarray(i * FRAME, (i + 1) * FRAME))) }
}

export interface WebPhoneOptions {
  id: string
  target: WebTarget
  steps: CallerStep[]
  /** Each step's audio as 20 ms frames at 8 kHz (the voiced frames are judged on these), and as Opus. */
  audio: Int16Array[][]
  opus: OpusAudio
  deadlineMs: number
}

export async function runWebPhone(o: WebPhoneOptions): Promise<PhoneLog> {
  const log = newLog(o.id)
  const ear = new AgentEar()
  const { url, key, agentId } = o.target
  const { pc, track, transceiver } = loopbackPeer()
  let run: CallerRun | undefined
  let agentLeft = false
  const left = () => {
    if (agentLeft || log.hungUpBy === 'caller') return
    agentLeft = true
    if (log.hungUpBy === 'none') log.hungUpBy = 'agent'
    run?.stop()
  }
  let connect: { resolve(): void; reject(e: Error): void } | undefined
  const connected = new Promise<void>((resolve, reject) => (connect = { resolve, reject }))
  connected.catch(() => {})
  pc.connectionStateChange.subscribe((s) => {
    if (s === 'connected') connect?.resolve()
    if (s === 'failed' || s === 'closed' || s === 'disconnected') (connect?.reject(new Error(`ICE/DTLS ${s} before connecting`)), left())
  })
  let poller: ReturnType<typeof setInterval> | undefined
  const liveView = async () => {
    const res = await fetch(`${url}/api/agents/${agentId}/web-calls/${log.callId}`, { headers: { authorization: `Bearer ${key}` } }).catch(() => undefined)
    const view = (await res?.json().catch(() => undefined)) as { status?: string } | undefined
    return res?.status === 404 || view?.status === 'ended'
  }
  try {
    const offer = await gatheredOffer(pc)
    const res = await fetch(`${url}/api/agents/${agentId}/web-calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sdp: offer }),
    })
    const body = (await res.json().catch(() => ({}))) as { callId?: string; sdp?: string }
    if (res.status !== 201 || !body.sdp) throw new Error(`POST web-calls answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`)
    log.callId = body.callId
    const pt = Number(/a=rtpmap:(\d+) opus\/48000/i.exec(body.sdp)?.[1] ?? 111)
    const decoder = new OpusCodec(OPUS_RATE)
    transceiver.onTrack.subscribe((t) =>
      t.onReceiveRtp.subscribe((rtp) => {
        const at = absNow()
        if (rtp.header.payloadType !== pt || rtp.payload.length === 0) return
        let pcm: Int16Array
        try {
          pcm = decoder.decode(rtp.payload)
        } catch {
          return // a corrupt packet: nothing heard
        }
        heard(log, ear, at, frameDbfs(pcm))
      }),
    )
    // the appliance closing its peer (the agent hung up) ends DTLS
    transceiver.dtlsTransport?.onStateChange.subscribe((s) => s === 'closed' && left())
    await pc.setRemoteDescription({ type: 'answer', sdp: body.sdp })
    const limit = setTimeout(() => connect?.reject(new Error(`ICE/DTLS not connected in ${CONNECT_MS / 1000} s`)), CONNECT_MS)
    await connected.finally(() => clearTimeout(limit))
    log.answeredAt = absNow()
    if (POLL_MS > 0) poller = setInterval(() => void liveView().then((ended) => ended && left()), POLL_MS)
    let seq = (Math.random() * 0xffff) >>> 0
    let ts = (Math.random() * 0xffffffff) >>> 0
    run = speakScript(o, log, ear, (f, first) => {
      const payload = 'step' in f ? o.opus.steps[f.step]![f.index]! : o.opus.noise[f.noise % 50]!
      const header = new RtpHeader({ payloadType: pt, sequenceNumber: seq, timestamp: ts >>> 0, marker: first })
      seq = (seq + 1) & 0xffff
      ts = (ts + 960) >>> 0
      track.writeRtp(new RtpPacket(header, Buffer.from(payload)))
    })
    if (agentLeft) run.stop()
    await run.done
    clearInterval(poller)
    if (log.hungUpBy === 'none') {
      log.hungUpBy = 'caller'
      await fetch(`${url}/api/agents/${agentId}/web-calls/${log.callId}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } }).catch(() => {})
    }
    judge(log, run, o.steps.length, o.deadlineMs)
  } catch (err) {
    run?.stop()
    log.error = (err as Error).message
    // a call that was set up is hung up, so it does not stay on the appliance as load
    if (log.callId) await fetch(`${url}/api/agents/${agentId}/web-calls/${log.callId}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } }).catch(() => {})
  } finally {
    clearInterval(poller)
    log.endedAt = absNow()
    await pc.close().catch(() => {})
  }
  return log
}
